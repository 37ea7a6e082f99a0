import Foundation
import Glibc
import Spool
import SpoolConfiguration
import SpoolControl
import SpoolDocument
import SpoolHandlers
import SpoolNames
import SpoolQueue
import SpoolReporting
import SpoolSending
import SpoolSystem
import SpoolTestSupport
import SpoolTransport

/// Case 4: what cron pays every minute: an empty spool, one full of operations none of which is due, and one
/// whose due backlog waits on its origin, for each thing that may hold an origin back.
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
    for held in HeldOrigin.allCases { benchHeld(held, report, config, empty: emptyStats, times: times) }
    report.add(
        "idle run, empty spool, ms", spool: describe(emptyStats, "ms"),
        baseline: "spool-send --help " + describe(help, "ms"),
        ratio: emptyStats.median / help.median, target: "as cheap as process start allows")
}

/// What holds an origin's backlog back, as real runs teach it: the server's `Retry-After`, plain 503s (the
/// origin accepts nothing: unavailable), a refused connection (unreachable).
enum HeldOrigin: String, CaseIterable {
    case retryAfter = "429 with Retry-After: 3600"
    case unavailable = "plain 503s (unavailable)"
    case unreachable = "refused connections (unreachable)"

    /// A server answering as this cause does, or nil for a port nothing listens on.
    func server() -> TestServer? {
        switch self {
        case .retryAfter: try! TestServer { _ in .respond(429, ["Retry-After": "3600"], "") }
        case .unavailable: try! TestServer { _ in .respond(503, [:], "") }
        case .unreachable: nil
        }
    }
}

/// A due backlog whose origin is held back by `held`: the first run learns it from the origin; the later
/// runs must cost what an idle run costs, and open no document (counted with strace when it is installed).
func benchHeld(
    _ held: HeldOrigin, _ report: Report, _ config: Config, empty: Stats, times: ([String]) -> Stats
) {
    let server = held.server()
    defer { server?.stop() }
    let base = server?.baseURL ?? "http://127.0.0.1:\(TestServer.deadPort())"
    let spool = Fixtures.spool()
    Fixtures.fill(spool, count: config.idleQueue, base: base)
    Fixtures.settle()
    // A long backoff, so that the timed runs all fall within it (as cron runs within an hour's wait).
    let argv = ["\(config.binaries)/spool-send", "--spool", spool, "--once", "--min-backoff", "1200"]
    let first = run(argv).seconds * 1000
    // Cron runs a minute apart: the folders' times settle, so that the next run can leave its idle hint.
    usleep(1_200_000)
    let stats = times(argv)
    precondition(Fixtures.count(spool + "/new") == config.idleQueue, "an operation to a held origin moved")
    // Without the idle hint, as after any change: the run lists every name, and still opens no document.
    unlink(spool + "/.idle")
    let opened = documentsOpened(argv).map { ", \($0) document(s) opened" } ?? ""
    report.add(
        "run over a held origin's backlog, \(held.rawValue), ms",
        spool: "\(config.idleQueue) due: " + describe(stats, "ms") + " (first run: \(fmt(first)) ms\(opened))",
        baseline: "empty spool " + describe(empty, "ms"), ratio: stats.median / empty.median,
        target: "<= 2x empty, no document opened",
        met: stats.median <= 2 * empty.median && (opened.isEmpty || opened.hasPrefix(", 0 ")))
}

/// How many operation documents one run of `argv` opens, by strace; nil without strace.
func documentsOpened(_ argv: [String]) -> Int? {
    guard let strace = which("strace") else { return nil }
    let trace = Fixtures.bareDirectory() + "/trace"
    _ = run([strace, "-f", "-qq", "-e", "trace=openat", "-o", trace] + argv)
    guard let text = try? String(contentsOfFile: trace, encoding: .utf8) else { return nil }
    return text.split(separator: "\n").filter { line in
        // Operation names begin with `bench`: opened relative to their folder, or by a path through it.
        line.contains("openat(")
            && (line.contains("\"bench") || line.contains("new/bench") || line.contains("cur/bench"))
    }.count
}
