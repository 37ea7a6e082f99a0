import Glibc
import Spool

/// Case 4: what cron pays every minute: an empty spool, and one full of operations none of which is due.
func benchIdle(_ report: Report, _ config: Config) {
    report.section("4. Idle cost of spool-send --once (median of \(config.idleRuns) runs)")
    let empty = Fixtures.spool()
    let waiting = Fixtures.spool()
    Fixtures.fill(waiting, count: config.idleQueue, base: "http://127.0.0.1:9", dueSeconds: Timestamp.now() + 86400)
    func times(_ argv: [String]) -> Stats {
        _ = run(argv)
        return Stats(values: (0..<config.idleRuns).map { _ in run(argv).seconds * 1000 })
    }
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
    report.line("process start: /bin/true \(describe(trueStats, "ms")); spool-send --help \(describe(help, "ms"))")
    report.add("idle run, ms", spool: "\(config.idleQueue) not due: " + describe(waitingStats, "ms"), baseline: "empty spool " + describe(emptyStats, "ms"),
               ratio: waitingStats.median / emptyStats.median, target: "<= 2x empty", met: waitingStats.median <= 2 * emptyStats.median)
    report.add("idle run after a change (full listing), ms", spool: "\(config.idleQueue) not due: " + describe(listing, "ms"),
               baseline: "empty spool " + describe(emptyStats, "ms"), ratio: listing.median / emptyStats.median)
    report.add("idle run, empty spool, ms", spool: describe(emptyStats, "ms"), baseline: "spool-send --help " + describe(help, "ms"),
               ratio: emptyStats.median / help.median, target: "as cheap as process start allows")
}

/// Case 5: delivery time per operation and peak memory at a small and a large queue.
func benchGrowth(_ report: Report, _ config: Config, _ server: BenchServer) {
    let (small, large) = config.growthSizes
    report.section("5. Growth: \(small) against \(large) queued operations (concurrency 4)")
    func measure(_ count: Int) -> (perOperation: Stats, memory: Stats) {
        var times: [Double] = [], memory: [Double] = []
        for _ in 0..<config.repetitions {
            let spool = Fixtures.spool()
            Fixtures.fill(spool, count: count, base: server.base)
            let finished = run(["\(config.binaries)/spool-send", "--spool", spool, "--once"])
            precondition(Fixtures.count(spool + "/new") == 0)
            times.append(finished.seconds / Double(count) * 1e6)
            memory.append(Double(finished.maxResidentKB) / 1024)
        }
        return (Stats(values: times), Stats(values: memory))
    }
    let a = measure(small), b = measure(large)
    report.add("time per operation, µs", spool: "\(large): " + describe(b.perOperation, "µs"), baseline: "\(small): " + describe(a.perOperation, "µs"),
               ratio: b.perOperation.median / a.perOperation.median, target: "<= 1.3x", met: b.perOperation.median <= 1.3 * a.perOperation.median)
    report.add("peak resident memory, MiB", spool: "\(large): " + describe(b.memory, "MiB"), baseline: "\(small): " + describe(a.memory, "MiB"),
               ratio: b.memory.median / a.memory.median, target: "<= 1.5x", met: b.memory.median <= 1.5 * a.memory.median)
}
