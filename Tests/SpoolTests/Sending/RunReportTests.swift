import Foundation
import Glibc
import SpoolTestSupport
import Testing
@testable import Spool
@testable import SpoolSystem
@testable import SpoolTransport
@testable import SpoolNames
@testable import SpoolDocument
@testable import SpoolConfiguration
@testable import SpoolQueue
@testable import SpoolHandlers
@testable import SpoolSending
@testable import SpoolReporting
@testable import SpoolControl

/// What a run says: a stopped or paused origin once at the default level, a line per run with `-v`, a
/// watcher's start and stop with `-v`, and filings naming the method and URL.
@Suite struct RunReportTests {
    @Test func aStoppedOriginIsSaidOnceWithWhatItHoldsBack() throws {
        let spool = TemporarySpool()
        let port = RefusedOriginTests.closedPort()
        for key in 0..<3 { try spool.enqueue(["PUT", "http://127.0.0.1:\(port)/k\(key)"]) }
        let quiet = try spool.send()
        let lines = quiet.stderr.split(separator: "\n").filter { $0.contains("127.0.0.1:\(port)") }
        #expect(
            lines == [
                "spool-send: http://127.0.0.1:\(port): refused; nothing more is sent to it in this run (2 more "
                    + "operation(s) held back)"
            ],
            "\(quiet.stderr)")
        let verbose = try spool.send(["-v", "--flush"])
        #expect(
            verbose.stderr.contains("1 sent: 0 done, 1 deferred, 0 failed, 0 conflict; next at "), "\(verbose.stderr)")
        spool.names("new").forEach { try? FileManager.default.removeItem(atPath: "\(spool.path)/new/\($0)") }
        let idle = try spool.send(["-v"])
        #expect(idle.stderr == "spool-send: nothing due\n", "\(idle.stderr)")
    }

    /// Under cron, an origin unreachable for ten runs and then back costs two lines at the default level:
    /// when it became unreachable, and when it answered again; the runs between say it with `-v` only. Its
    /// probes back off (here from one second to two), and the runs between them send nothing.
    @Test func anUnreachableOriginIsSaidWhenItGoesAndWhenItComesBack() throws {
        let spool = TemporarySpool()
        let port = RefusedOriginTests.closedPort()
        for key in 0..<3 { try spool.enqueue(["PUT", "http://127.0.0.1:\(port)/k\(key)"]) }
        var lines: [Substring] = []
        let cron = ["--min-backoff", "1", "--max-backoff", "2"]
        let record = { OriginRecord.read(try! spool.open()).first }
        // Cron's clock, compressed: runs one after another until the origin was probed again twice (its
        // backoff from one second to two), ten runs at least; most of them fall within a backoff.
        var runs = 0
        #expect(eventually(within: 20) {
            lines += (try? spool.send(cron).stderr.split(separator: "\n")) ?? ["the run failed"]
            runs += 1
            return runs >= 10 && (record()?.failedProbes ?? 0) >= 3
        }, "probed again twice: \(String(describing: record()))")
        #expect(lines.count == 1 && lines.first?.contains("refused; nothing more is sent to it") == true,
                "\(lines)")
        let verbose = try spool.send(cron + ["--flush", "-v"])
        #expect(verbose.stderr.contains("; unreachable since "), "\(verbose.stderr)")
        let down = try Command.run("spool-ctl", ["--spool", spool.path, "stats"])
        #expect(down.stdout.contains(", unreachable since "), "\(down.stdout)")
        // The list says when the next probe is while the backoff lasts, and that the next run probes after it:
        // which one depends on the clock when it ran (a slow machine may list after a two-second backoff).
        let probeAt = record()?.pausedUntil ?? 0, listedFrom = Timestamp.nowSeconds()
        let list = try Command.run("spool-ctl", ["--spool", spool.path, "list", "new"])
        let listedTo = Timestamp.nowSeconds()
        #expect(list.stdout.contains("waits for its origin, unreachable since "), "\(list.stdout)")
        if listedTo < probeAt {
            #expect(list.stdout.contains("; probed again at "), "\(list.stdout)")
        } else if listedFrom >= probeAt {
            #expect(list.stdout.contains("; probed at the next run"), "\(list.stdout)")
        } else {
            #expect(list.stdout.contains("; probed"), "\(list.stdout)")
        }
        let server = try TestServer(port: port) { _ in .respond(204, [:], "") }
        defer { server.stop() }
        // Its backoff ends, and the writes' own (from one second to two): the next cron run probes it.
        #expect(eventually(within: 5) {
            (record()?.pausedUntil ?? 0) < Timestamp.nowSeconds()
                && spool.waiting().allSatisfy { ($0.state?.dueSeconds ?? 0) < Timestamp.nowSeconds() }
        }, "the backoffs end")
        let back = try spool.send(cron)
        lines += back.stderr.split(separator: "\n")
        #expect(lines.count == 2, "\(lines)")
        #expect(back.stderr.contains("http://127.0.0.1:\(port): reachable again, after "), "\(back.stderr)")
        #expect(server.requests.count == 3 && spool.operations("new").isEmpty)
        let up = try Command.run("spool-ctl", ["--spool", spool.path, "stats"])
        #expect(!up.stdout.contains("unreachable since"), "\(up.stdout)")
    }

    @Test func aPauseIsSaidWithTheWayToLiftIt() throws {
        let spool = TemporarySpool()
        let server = try TestServer { _ in .respond(429, ["Retry-After": "600"], "") }
        defer { server.stop() }
        try spool.enqueue(["PUT", server.baseURL + "/a"])
        let first = try spool.send()
        let origin = try Operation.origin(of: server.baseURL)
        #expect(first.stderr.contains("\(origin): paused until "), "\(first.stderr)")
        try spool.enqueue(["PUT", server.baseURL + "/b"])
        #expect(try spool.send().stderr.isEmpty, "a pause is said once, not in every cron run it lasts")
        let paused = try spool.send(["-v"])
        #expect(
            paused.stderr.contains("\(origin): paused until ")
                && paused.stderr.contains(" (the server's Retry-After); ")
                // Both wait on the pause: the deferred /a and the new /b, counted from their names alone.
                && paused.stderr.contains("2 operation(s) held back; 'spool-ctl flush --origin \(origin)' lifts it"),
            "\(paused.stderr)")
        #expect(server.requests.count == 1)
    }

    /// A write held by its origin's pause says what it waits for, and until when, in list, show and --json.
    @Test func aWriteHeldByItsOriginsPauseSaysWhy() throws {
        let spool = TemporarySpool()
        let server = try TestServer { _ in .respond(429, ["Retry-After": "600"], "") }
        defer { server.stop() }
        try spool.enqueue(["PUT", server.baseURL + "/a"])
        try spool.send()
        let waiting = try spool.enqueue(["PUT", server.baseURL + "/b"])
        let origin = try Operation.origin(of: server.baseURL)
        let record = try #require(OriginRecord.read(try spool.open()).first { $0.origin == origin })
        #expect(record.pausedBy == "retry-after" && record.pausedUntil > Timestamp.nowSeconds())
        let until = Timestamp.formatRFC3339(record.pausedUntil)
        let why = "its origin's pause until \(until), asked by the server's Retry-After"
        let list = try Command.run("spool-ctl", ["--spool", spool.path, "list", "new"])
        let row = list.lines.first { $0.hasPrefix(waiting) } ?? ""
        #expect(row.contains(until) && row.hasSuffix("waits for " + why), "\(list.stdout)")
        let show = try Command.run("spool-ctl", ["--spool", spool.path, "show", waiting])
        #expect(show.lines.contains { $0.hasPrefix("waits for:") && $0.hasSuffix(why) }, "\(show.stdout)")
        let json = try Command.run("spool-ctl", ["--spool", spool.path, "show", waiting, "--json"])
        #expect(json.stdout.contains(#""waits_for":"\#(why)""#), "\(json.stdout)")
    }

    @Test func filingsNameTheRequestAndAWatcherSaysWhenItStartsAndStops() throws {
        let spool = TemporarySpool()
        let server = try TestServer { request in
            request.path == "/bad" ? .respond(400, [:], "no") : .respond(204, [:], "")
        }
        defer { server.stop() }
        let id = try spool.enqueue(["PUT", server.baseURL + "/bad"])
        let filed = try spool.send()
        #expect(filed.stderr.contains("\(id) (PUT \(server.baseURL)/bad) -> failed/\(id): "), "\(filed.stderr)")

        let (watcher, _, err) = try Command.start("spool-send", ["--spool", spool.path, "--watch", "-v"])
        try spool.enqueue(["PUT", server.baseURL + "/watched"])
        let deadline = Date().addingTimeInterval(10)
        while !server.requests.contains(where: { $0.path == "/watched" }), Date() < deadline { usleep(5_000) }
        #expect(server.requests.contains { $0.path == "/watched" }, "the watcher delivered")
        kill(watcher.processIdentifier, SIGTERM)
        watcher.waitUntilExit()
        let log = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(watcher.terminationStatus == 0, "\(log)")
        #expect(
            log.hasPrefix(
                "spool-send: watching \(spool.path)/new (pid \(watcher.processIdentifier), --concurrency 4, "
                    + "--threads 1)\n"),
            "\(log)")
        #expect(log.contains("1 sent: 1 done, 0 deferred"), "\(log)")
        #expect(log.hasSuffix("spool-send: stopped; every operation is in its place\n"), "\(log)")
    }
}
