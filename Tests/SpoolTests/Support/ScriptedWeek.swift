import Foundation
import Glibc
import SpoolTestSupport
import Synchronization
import Testing
@testable import Spool
@testable import SpoolDocument
@testable import SpoolQueue
@testable import SpoolSystem

/// A week under cron, in compressed time: origins that follow a script (down for a stretch, in maintenance
/// with `Retry-After`, pushing back with 429 and `Retry-After`, a rate limiter without headers, slow), a
/// producer that keeps enqueuing, and `spool-send` run as cron would (`--once` every `tick` seconds) or as
/// one watcher. What each server accepted is the record.
final class ScriptedWeek: @unchecked Sendable {
    /// What an origin does, in seconds since the week began.
    enum Episode: String, CaseIterable {
        /// Nothing listens until `recovery`; then it answers 204.
        case outage
        /// 503 with `Retry-After: 2` until `recovery`; then 204.
        case maintenance
        /// 429 with `Retry-After: 1` until `recovery`; then 204.
        case pushBack = "push-back"
        /// nginx's `limit_req` at `limiterRate` a second, 429 without headers, all week.
        case limiter
        /// 204 after 0.3 s, all week.
        case slow
    }

    /// One origin of the week.
    final class Origin: @unchecked Sendable {
        let episode: Episode
        let port: UInt16
        var server: TestServer?
        var nginx: Nginx?
        init(_ episode: Episode, port: UInt16) { (self.episode, self.port) = (episode, port) }
        var base: String { "http://127.0.0.1:\(port)" }
        /// The paths the Swift server accepted (answered 204), in order, and every status it answered.
        let acceptedPaths = Locked<[(path: String, at: Double)]>([])
        let answered = Locked<[Int]>([])
        /// The paths it accepted, in order: nginx's log, or the Swift server's record.
        var accepted: [String] {
            guard let nginx else { return acceptedPaths.withLock { $0.map(\.path) } }
            return nginx.accessLog.filter { $0.fields.count == 3 && $0.fields[1] == "204" }.map { $0.fields[2] }
        }
        /// Every status it answered, in order.
        var statuses: [Int] {
            guard let nginx else { return answered.withLock { $0 } }
            return nginx.accessLog.filter { $0.fields.count == 3 }.compactMap { Int($0.fields[1]) }
        }
    }

    /// When the episodic origins recover, seconds after the start; the producer stops at `producing`.
    static let recovery = 8.0, producing = 12.0, tick = 1.0
    /// The limiter's true rate, requests a second.
    static let limiterRate = 5
    /// The cron runs' options: backoffs of a compressed week.
    static let cron = ["--min-backoff", "1", "--max-backoff", "2", "--concurrency", "8"]

    let spool = TemporarySpool()
    let origins: [Origin]
    let start = Date()
    /// Each write's path by origin, in enqueue order, with when it was enqueued.
    let enqueued = Locked<[Episode: [(path: String, at: Double)]]>([:])
    /// What each run printed at the default level, with when it began.
    var runs: [(at: Double, lines: [Substring])] = []
    /// When each episodic origin's backlog from before its recovery was all accepted: seconds from the
    /// recovery to the last of it, and under cron the runs begun after the recovery (the one that drained it
    /// included).
    var drainedAfterRecovery: [Episode: (seconds: Double, runs: Int)] = [:]

    init() throws {
        origins = Episode.allCases.map { Origin($0, port: $0 == .outage ? RefusedOriginTests.closedPort() : 0) }
        for origin in origins { try serve(origin) }
    }

    var elapsed: Double { Date().timeIntervalSince(start) }

    /// Starts `origin`'s server, but the outage's, which starts at `recovery`.
    private func serve(_ origin: Origin) throws {
        switch origin.episode {
        case .outage: return
        case .limiter:
            origin.nginx = try PacedOriginTests().limiter(rate: ScriptedWeek.limiterRate)
        default:
            origin.server = try TestServer { [self] request in answer(origin, request) }
        }
    }

    /// `origin`'s answer now, recorded.
    private func answer(_ origin: Origin, _ request: TestServer.Request) -> TestServer.Reply {
        let recovered = elapsed >= ScriptedWeek.recovery
        let (status, headers): (Int, [String: String]) = switch origin.episode {
        case .maintenance where !recovered: (503, ["Retry-After": "2"])
        case .pushBack where !recovered: (429, ["Retry-After": "1"])
        default: (204, [:])
        }
        origin.answered.withLock { $0.append(status) }
        if status == 204 { origin.acceptedPaths.withLock { $0.append((request.path, elapsed)) } }
        if origin.episode == .slow { return .delayed(0.3, 204) }
        return .respond(status, headers, "")
    }

    /// The port an origin listens on (the test servers pick theirs).
    func base(_ origin: Origin) -> String {
        origin.nginx.map { "http://127.0.0.1:\($0.port)" } ?? origin.server?.baseURL ?? origin.base
    }

    /// The producer: every quarter second until `producing`, one write to each origin, on three keys of its
    /// own each (a key is the spool's, not the origin's: one shared by two origins would order them together);
    /// and at the start, the limiter's backlog: thirty at once, more than its rate and burst take.
    func produce() -> Thread {
        let thread = Thread { [self] in
            var sequences: [Episode: Int] = [:]
            var first = true
            while elapsed < ScriptedWeek.producing {
                for origin in origins {
                    for _ in 0..<(first && origin.episode == .limiter ? 30 : 1) {
                        let sequence = sequences[origin.episode, default: 0]
                        sequences[origin.episode] = sequence + 1
                        enqueue(origin, sequence)
                    }
                }
                first = false
                usleep(250_000)  // The script's clock: a write per origin every quarter second.
            }
        }
        thread.start()
        return thread
    }

    /// Enqueues `origin`'s write number `sequence`, on key `sequence % 3` of the origin's three.
    private func enqueue(_ origin: Origin, _ sequence: Int) {
        let path = (origin.episode == .limiter ? "/item/" : "/") + "k\(sequence % 3)/\(sequence)"
        _ = try? spool.open().enqueue(Operation(document: .object([
            ("method", .string("PUT")), ("url", .string(base(origin) + path)),
            ("key", .string("\(origin.episode)-k\(sequence % 3)")), ("body", .string("\(sequence)"))])))
        enqueued.withLock { $0[origin.episode, default: []].append((path, elapsed)) }
    }

    /// The origin behind nginx's limit_req.
    var limiter: Origin { origins.first { $0.episode == .limiter }! }

    /// The outage ends: its server starts on its port.
    func recoverOutage() throws {
        let outage = origins.first { $0.episode == .outage }!
        outage.server = try TestServer(port: outage.port) { [self] in answer(outage, $0) }
    }

    /// Whether every write enqueued was accepted and nothing waits.
    var drained: Bool {
        let all = enqueued.withLock { $0 }
        return origins.allSatisfy { Set($0.accepted).isSuperset(of: all[$0.episode, default: []].map(\.path)) }
            && spool.names("new").isEmpty && spool.names("cur").isEmpty
    }

    /// Notes the episodic origins whose backlog from before the recovery is all accepted now; called only
    /// after the recovery.
    func noteDrained(runs: Int) {
        precondition(elapsed >= ScriptedWeek.recovery, "a backlog drains only after its origin recovered")
        let all = enqueued.withLock { $0 }
        for origin in origins where [.outage, .maintenance, .pushBack].contains(origin.episode) {
            guard drainedAfterRecovery[origin.episode] == nil else { continue }
            let before = all[origin.episode, default: []].filter { $0.at < ScriptedWeek.recovery }.map(\.path)
            let accepted = origin.acceptedPaths.withLock { $0 }
            guard Set(accepted.map(\.path)).isSuperset(of: before) else { continue }
            let last = accepted.filter { before.contains($0.path) }.map(\.at).max() ?? elapsed
            drainedAfterRecovery[origin.episode] = (last - ScriptedWeek.recovery, runs)
        }
    }

    /// Runs the week under cron: `spool-send --once` every `tick` until drained (at most `deadline` seconds).
    func underCron(deadline: Double = 60) throws {
        let producer = produce()
        var outageServed = false
        while elapsed < deadline {
            if !outageServed, elapsed >= ScriptedWeek.recovery { try recoverOutage(); outageServed = true }
            let at = elapsed
            let run = try Command.run("spool-send", ["--spool", spool.path, "--once"] + ScriptedWeek.cron)
            #expect(run.status == 0, "\(run.stderr)")
            runs.append((at, run.stderr.split(separator: "\n")))
            if elapsed >= ScriptedWeek.recovery {
                noteDrained(runs: runs.filter { $0.at >= ScriptedWeek.recovery }.count)
            }
            if elapsed > ScriptedWeek.producing, drained { break }
            let next = at + ScriptedWeek.tick
            // Cron's clock: the next run at the next tick.
            if elapsed < next { usleep(UInt32((next - elapsed) * 1e6)) }
        }
        #expect(eventually(within: 5) { producer.isFinished }, "the producer stops at its time")
    }

    /// Stops every server: their handlers hold the week.
    func stop() {
        for origin in origins {
            origin.server?.stop()
            origin.server = nil
            origin.nginx = nil
        }
    }

    /// Runs the week under one watcher, until drained (at most `deadline` seconds).
    func underWatcher(deadline: Double = 60) throws -> String {
        let (watcher, _, err) = try Command.start(
            "spool-send", ["--spool", spool.path, "--watch"] + ScriptedWeek.cron)
        let producer = produce()
        var outageServed = false
        while elapsed < deadline {
            if !outageServed, elapsed >= ScriptedWeek.recovery { try recoverOutage(); outageServed = true }
            if elapsed >= ScriptedWeek.recovery { noteDrained(runs: 0) }
            if elapsed > ScriptedWeek.producing, drained { break }
            usleep(50_000)
        }
        #expect(eventually(within: 5) { producer.isFinished }, "the producer stops at its time")
        watcher.interrupt()
        watcher.waitUntilExit()
        return String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }
}
