import Glibc
import Spool
import SpoolSystem
import SpoolTransport
import SpoolNames
import SpoolDocument
import SpoolConfiguration
import SpoolQueue
import SpoolHandlers
import SpoolSending
import SpoolReporting
import SpoolControl

/// Case 4: what cron pays every minute: an empty spool, and one full of operations none of which is due.
func benchIdle(_ report: Report, _ config: Config) {
    report.section("4. Idle cost of spool-send --once (median of \(config.idleRuns) runs)")
    let empty = Fixtures.spool()
    let waiting = Fixtures.spool()
    Fixtures.fill(
        waiting, count: config.idleQueue, base: "http://127.0.0.1:9", dueSeconds: Timestamp.nowSeconds() + 86400)
    func times(_ argv: [String]) -> Stats {
        _ = run(argv)
        return Stats(values: (0..<config.idleRuns).map { _ in run(argv).seconds * 1000 })
    }
    // A backlog that is due but whose origin asked for a pause an hour long (as `.origins` keeps it): the
    // first run after the pause was learned lists once; the later ones must cost what an idle run costs.
    let paused = Fixtures.spool()
    Fixtures.fill(paused, count: config.idleQueue, base: "http://127.0.0.1:9")
    var record = OriginRecord(origin: "http://127.0.0.1:9")
    record.pausedUntil = Timestamp.nowSeconds() + 3600
    OriginRecord.write([record], to: try! Spool(path: paused))
    // Cron runs a minute apart: let the folders' times settle so the first run can leave its idle hint.
    usleep(1_200_000)
    let trueStats = times(["/bin/true"])
    let help = times(["\(config.binaries)/spool-send", "--help"])
    let emptyStats = times(["\(config.binaries)/spool-send", "--spool", empty, "--once"])
    let waitingStats = times(["\(config.binaries)/spool-send", "--spool", waiting, "--once"])
    // The first run after any change lists the whole queue; measure that too, by removing the hint each time.
    let listing = Stats(values: (0..<config.idleRuns).map { _ in
        unlink(waiting + "/.idle")
        return run(["\(config.binaries)/spool-send", "--spool", waiting, "--once"]).seconds * 1000
    })
    precondition(Fixtures.count(waiting + "/new") == config.idleQueue, "an operation that was not due moved")
    // The floor of a run that must list: readdir over the same folder, nothing else.
    let readdirFloor = Stats(values: (0..<config.idleRuns).map { _ in
        let started = now()
        _ = Fixtures.count(waiting + "/new")
        return (now() - started) * 1000
    })
    let firstPaused = run(["\(config.binaries)/spool-send", "--spool", paused, "--once"]).seconds * 1000
    let pausedStats = times(["\(config.binaries)/spool-send", "--spool", paused, "--once"])
    precondition(Fixtures.count(paused + "/new") == config.idleQueue, "an operation to a paused origin moved")
    report.line("process start: /bin/true \(describe(trueStats, "ms")); spool-send --help \(describe(help, "ms"))")
    report.add(
        "idle run, ms", spool: "\(config.idleQueue) not due: " + describe(waitingStats, "ms"),
        baseline: "empty spool " + describe(emptyStats, "ms"),
        ratio: waitingStats.median / emptyStats.median, target: "<= 2x empty",
        met: waitingStats.median <= 2 * emptyStats.median)
    report.add(
        "idle run after a change (full listing), ms", spool: "\(config.idleQueue) not due: " + describe(listing, "ms"),
        baseline: "readdir of new/ " + describe(readdirFloor, "ms"), ratio: listing.median / readdirFloor.median,
        target: "<= 10x readdir", met: listing.median <= 10 * readdirFloor.median)
    report.add(
        "run over a paused origin's backlog, ms",
        spool: "\(config.idleQueue) due, origin paused: " + describe(pausedStats, "ms")
            + " (first run after the pause: \(fmt(firstPaused)) ms)",
        baseline: "empty spool " + describe(emptyStats, "ms"), ratio: pausedStats.median / emptyStats.median,
        target: "<= 2x empty", met: pausedStats.median <= 2 * emptyStats.median)
    report.add(
        "idle run, empty spool, ms", spool: describe(emptyStats, "ms"),
        baseline: "spool-send --help " + describe(help, "ms"),
        ratio: emptyStats.median / help.median, target: "as cheap as process start allows")
}
