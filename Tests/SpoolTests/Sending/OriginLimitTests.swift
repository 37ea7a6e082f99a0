import Foundation
import Glibc
import Synchronization
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

/// A good citizen of other people's servers, against real servers: one that serves three at once and
/// answers 429 beyond, one that announces its rate, one that asks for a pause.
@Suite(.serialized) struct OriginLimitTests {
    /// What a server saw: when each request arrived, how many it was serving at most after the first second.
    final class Record: Sendable {
        let inProgress = Atomic<Int>(0)
        let mostAtOnce = Atomic<Int>(0)
        let tooMany = Atomic<Int>(0)
        let served = Atomic<Int>(0)
        let arrivals = Locked<[Double]>([])

        /// Counts one arrival; returns how many are in progress with it.
        func arrive() -> Int {
            let nowSeconds = Date().timeIntervalSince1970
            let first = arrivals.withLock { list in
                list.append(nowSeconds)
                return list[0]
            }
            let count = inProgress.add(1, ordering: .relaxed).newValue
            if nowSeconds - first > 1 {
                var seen = mostAtOnce.load(ordering: .relaxed)
                while count > seen,
                    !mostAtOnce.compareExchange(expected: seen, desired: count, ordering: .relaxed).exchanged
                {
                    seen = mostAtOnce.load(ordering: .relaxed)
                }
            }
            return count
        }

        func leave() { inProgress.subtract(1, ordering: .relaxed) }
    }

    /// `count` operations over `keys` keys, enqueued through the library.
    func enqueue(_ spool: TemporarySpool, _ server: TestServer, count: Int, keys: Int) throws {
        let library = try spool.open()
        for i in 0..<count {
            let document = JSON.object([
                ("method", .string("PUT")), ("url", .string("\(server.baseURL)/item/\(i % keys)")),
                ("body", .string("\(i)"))
            ])
            _ = try library.enqueue(try Operation(document: document))
        }
    }

    /// Runs a watcher until `done` holds (at most `limit` seconds); returns its stderr and the time taken.
    func watch(_ spool: TemporarySpool, _ arguments: [String], limit: Double = 90, until done: () -> Bool) throws -> (
        String, Double
    ) {
        let started = Date()
        let (watcher, _, err) = try Command.start("spool-send", ["--spool", spool.path, "--watch", "-v"] + arguments)
        // Read as it comes: -v fills a pipe's 64 KiB long before the end, and a full pipe stops the writer.
        let output = Locked(Data())
        let finished = DispatchSemaphore(value: 0)
        let handle = err.fileHandleForReading
        Thread {
            let data = handle.readDataToEndOfFile()
            output.withLock { $0 = data }
            finished.signal()
        }.start()
        while !done(), Date().timeIntervalSince(started) < limit { usleep(50_000) }
        let elapsed = Date().timeIntervalSince(started)
        watcher.interrupt()
        watcher.waitUntilExit()
        finished.wait()
        return (String(decoding: output.withLock { $0 }, as: UTF8.self), elapsed)
    }

    @Test func anOriginServingThreeAtOnceIsSentAboutThree() throws {
        let record = Record()
        let server = try TestServer { _ in
            defer { record.leave() }
            if record.arrive() > 3 {
                record.tooMany.add(1, ordering: .relaxed)
                return .respond(429, [:], "")
            }
            usleep(20_000)
            record.served.add(1, ordering: .relaxed)
            return .respond(204, [:], "")
        }
        defer { server.stop() }
        let spool = TemporarySpool()
        try enqueue(spool, server, count: 500, keys: 100)
        let (stderr, elapsed) = try watch(spool, ["--concurrency", "32", "--min-backoff", "1", "--max-backoff", "2"]) {
            record.served.load(ordering: .relaxed) >= 500
        }
        let tooMany = record.tooMany.load(ordering: .relaxed), most = record.mostAtOnce.load(ordering: .relaxed)
        #expect(
            record.served.load(ordering: .relaxed) == 500 && spool.names("new").isEmpty && spool.names("cur").isEmpty,
            "served \(record.served.load(ordering: .relaxed)); new/ \(spool.names("new").count), cur/ \(spool.names("cur").count); \(stderr.split(separator: "\n").suffix(12).joined(separator: "\n"))"
        )
        #expect(most <= 4, "the server served \(most) at once after the first second (K + 1 = 4)")
        // The bound spool-send(8) derives: one 429 per probe past the last cut, at most one per 10 windows
        // of answers (here 500 / 30), plus those of the first round.
        #expect(tooMany < 50, "\(tooMany) answers 429 for 500 operations")
        let windows = stderr.split(separator: "\n").filter { $0.contains(": window ") }
        #expect(!windows.isEmpty, "-v logs each change of the window")

        // What the sender learned, as an operator reads it.
        let origin = "http://127.0.0.1:\(server.port)"
        let json = try Command.run("spool-ctl", ["--spool", spool.path, "stats", "--json"])
        #expect(
            json.stdout.contains(#""origin":"\#(origin)""#)
                && json.stdout.contains(#""too_many_requests":\#(tooMany),"#), "\(json.stdout)")
        let prometheus = try Command.run("spool-ctl", ["--spool", spool.path, "stats", "--prometheus"])
        #expect(
            prometheus.stdout.contains(
                "spool_origin_too_many_requests_total{spool=\"\(spool.path)\",origin=\"\(origin)\"} \(tooMany)\n"),
            "\(prometheus.stdout)")
        #expect(prometheus.stdout.contains("spool_origin_window{spool=\"\(spool.path)\",origin=\"\(origin)\"} "))
        print(
            "origin limits: K = 3, 500 operations over 100 keys with --concurrency 32 in "
                + "\(String(format: "%.1f", elapsed)) s; "
                + "\(tooMany) answers 429 (\(String(format: "%.1f", Double(tooMany) / 5))%), at most \(most) at once "
                    + "after the first second, "
                + "\(windows.count) window changes, the last: \(windows.last.map(String.init) ?? "none")")
    }

    @Test func anAnnouncedPolicyOfTenASecondIsKept() throws {
        let record = Record()
        let server = try TestServer { _ in
            _ = record.arrive()
            record.leave()
            record.served.add(1, ordering: .relaxed)
            return .respond(204, ["RateLimit-Policy": "10;w=1"], "")
        }
        defer { server.stop() }
        let spool = TemporarySpool()
        try enqueue(spool, server, count: 40, keys: 40)
        _ = try watch(spool, ["--concurrency", "16"]) { record.served.load(ordering: .relaxed) >= 40 }
        let arrivals = record.arrivals.withLock { $0 }
        let first = arrivals.min() ?? 0
        // Every one-second window that starts after the first second.
        var busiest = 0
        for start in arrivals where start >= first + 1 {
            busiest = max(busiest, arrivals.filter { $0 >= start && $0 < start + 1 }.count)
        }
        #expect(arrivals.count == 40 && spool.names("new").isEmpty)
        #expect(busiest <= 11, "\(busiest) requests in one second after the first window")
        print(
            "origin limits: RateLimit-Policy 10;w=1 announced; at most \(busiest) requests in any second after the "
                + "first, 40 in \(String(format: "%.1f", (arrivals.max() ?? 0) - first)) s"
        )
    }

    @Test func retryAfterOnA429PausesTheWholeOrigin() throws {
        let record = Record()
        let pausedAt = Locked<Double?>(nil)
        let server = try TestServer { _ in
            defer { record.leave() }
            if record.arrive() == 1, pausedAt.withLock({ $0 == nil }) {
                pausedAt.withLock { $0 = Date().timeIntervalSince1970 }
                return .respond(429, ["Retry-After": "2"], "")
            }
            usleep(100_000)
            record.served.add(1, ordering: .relaxed)
            return .respond(204, [:], "")
        }
        defer { server.stop() }
        let spool = TemporarySpool()
        try enqueue(spool, server, count: 12, keys: 12)
        _ = try watch(spool, ["--concurrency", "4", "--min-backoff", "1"]) {
            record.served.load(ordering: .relaxed) >= 12
        }
        let paused = pausedAt.withLock { $0 } ?? 0
        let during = record.arrivals.withLock { $0 }.filter { $0 > paused + 0.05 && $0 < paused + 1.95 }
        #expect(record.served.load(ordering: .relaxed) == 12)
        #expect(during.isEmpty, "\(during.count) requests were sent while the origin had asked for 2 s of rest")
    }

    @Test func aPauseOutlivesTheRunThatLearnedIt() throws {
        let record = Record()
        let server = try TestServer { _ in
            _ = record.arrive()
            record.leave()
            return .respond(429, ["Retry-After": "120"], "")
        }
        defer { server.stop() }
        let spool = TemporarySpool()
        try enqueue(spool, server, count: 6, keys: 6)
        try spool.send(["--concurrency", "1", "--min-backoff", "0"])
        #expect(record.arrivals.withLock { $0.count } == 1, "the first 429 paused the whole origin")
        try spool.send(["--concurrency", "1", "--min-backoff", "0", "--flush"])
        #expect(record.arrivals.withLock { $0.count } == 1, "the next cron run keeps the pause the origin asked for")
        let stats = try Command.run("spool-ctl", ["--spool", spool.path, "stats"])
        #expect(
            stats.stdout.contains("http://127.0.0.1:\(server.port): window") && stats.stdout.contains("1 answers 429")
                && stats.stdout.contains("paused until"),
            "\(stats.stdout)")
    }

    @Test func retryAfterOnA503PausesTheOriginNotTheOperation() throws {
        let spool = TemporarySpool()
        let resource = VersionedResource(inject: { number, _ in
            number == 1 ? .respond(503, ["Retry-After": "2"], "busy") : nil
        })
        let server = try TestServer { resource.handle($0) }
        defer { server.stop() }
        try spool.enqueue(["PUT", server.baseURL + "/notes/1", "--body", "edit"])
        try spool.send(["--min-backoff", "0", "--max-backoff", "0"])
        let first = try #require(server.requests.first).received
        // A 503 is the origin's signal: the whole origin waits, the operation keeps its place and attempts.
        #expect(try #require(spool.waiting().first?.state).attempts == 0)
        try spool.send(["--min-backoff", "0"])
        #expect(server.requests.count == 1, "not retried before Retry-After")
        // `.origins` keeps the pause in whole seconds, rounded up.
        while Date().timeIntervalSince(first) < 3.05 { usleep(50_000) }
        try spool.send(["--min-backoff", "0"])
        #expect(server.requests.count == 2)
        #expect(server.requests[1].received.timeIntervalSince(first) >= 2)
        #expect(resource.writes == 1)
        #expect(spool.names("new").isEmpty)
    }
}
