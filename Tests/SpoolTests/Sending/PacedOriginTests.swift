import Foundation
import Glibc
import SpoolTestSupport
import Testing
@testable import Spool
@testable import SpoolSystem
@testable import SpoolNames
@testable import SpoolDocument
@testable import SpoolQueue
@testable import SpoolSending

/// A rate limit found without being told, against nginx's own `limit_req` (`burst=8 nodelay`, 429 without
/// headers unless said): what nginx logged (when each request came and what it answered) is the record.
@Suite(.serialized) struct PacedOriginTests {
    /// What nginx answered, in order: seconds since its first request, status, path.
    struct Answer {
        let seconds: Double
        let status: Int
        let path: String
    }

    /// nginx limiting `/item/` to `rate` requests a second, answering the excess 429 at once; `headers` are
    /// added to every answer (the limiter's own instructions, for the test that has them).
    func limiter(rate: Int, headers: String = "") throws -> Nginx {
        // `return` answers before limit_req runs: the static handler's 404 or 405 (a PUT) is what is limited,
        // and its error page answers 204.
        try Nginx(
            tls: false,
            locations: """
                location /item/ {
                    limit_req zone=api burst=8 nodelay;
                    limit_req_status 429;
                    \(headers)
                    root /nonexistent;
                    error_page 404 405 = @accepted;
                }
                location @accepted {
                    \(headers)
                    return 204;
                }
                """,
            http: "limit_req_zone $binary_remote_addr zone=api:1m rate=\(rate)r/s;",
            logFormat: "$msec $status $uri")
    }

    func answers(_ nginx: Nginx) -> [Answer] {
        let text = (try? String(contentsOfFile: nginx.directory + "/access.log", encoding: .utf8)) ?? ""
        let rows = text.split(separator: "\n").map { $0.split(separator: " ") }.filter { $0.count == 3 }
        let first = rows.first.flatMap { Double($0[0]) } ?? 0
        return rows.map { Answer(seconds: (Double($0[0]) ?? 0) - first, status: Int($0[1]) ?? 0, path: String($0[2])) }
    }

    /// `count` writes on as many keys, enqueued through the library.
    func enqueue(_ spool: TemporarySpool, _ nginx: Nginx, count: Int, from: Int = 0) throws {
        let library = try spool.open()
        for i in from..<from + count {
            _ = try library.enqueue(
                try Operation(document: .object([
                    ("method", .string("PUT")), ("url", .string("http://127.0.0.1:\(nginx.port)/item/\(i)")),
                    ("body", .string("\(i)"))
                ])))
        }
    }

    /// One `spool-send --once --concurrency 32` over the spool; the run must succeed and leave nothing.
    func send(_ spool: TemporarySpool) throws -> Double {
        let started = Date()
        let run = try Command.run("spool-send", ["--spool", spool.path, "--once", "--concurrency", "32"], timeout: 300)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(spool.names("new").isEmpty && spool.names("cur").isEmpty && spool.names("failed").isEmpty)
        return Date().timeIntervalSince(started)
    }

    func share429(_ answers: [Answer], after start: Double) -> Double {
        let late = answers.filter { $0.seconds >= start }
        return Double(late.filter { $0.status == 429 }.count) / Double(max(1, late.count))
    }

    @Test(.enabled(if: Nginx.binary != nil, "needs nginx"), arguments: [(40, 400), (10, 100), (200, 2000)])
    func aLimiterWithoutHeadersIsFoundAndKept(rate: Int, count: Int) throws {
        let nginx = try limiter(rate: rate)
        let spool = TemporarySpool()
        try enqueue(spool, nginx, count: count)
        let seconds = try send(spool)
        let first = answers(nginx)
        let delivered = Set(first.filter { $0.status == 204 }.map(\.path))
        let ideal = Double(count - 8) / Double(rate)
        #expect(delivered.count == count, "\(delivered.count) of \(count) delivered")
        #expect(first.contains { $0.status == 429 }, "the limiter answered no 429: the test limits nothing")
        // The pace is the limiter's unless a sanitizer makes spool-send itself the bottleneck: at 200/s under
        // AddressSanitizer on two cores it managed 2,000 writes in 21.8 s (11.5 s without).
        if Sanitizer.name == nil {
            #expect(seconds <= 2 * ideal, "\(count) writes in \(seconds) s at \(rate)/s (ideal \(ideal) s)")
        }
        // At most 5% answered 429 once the limit is found. Under ThreadSanitizer, which slows spool-send several
        // times over, its pace wavers more: 4 of 77 (5.2%) in one CI run at 10/s, where an unpaced sender meets
        // mostly 429s; the bound there is 8%.
        let allowed = Sanitizer.name == nil ? 0.05 : 0.08
        #expect(share429(first, after: 2) <= allowed, "\(share429(first, after: 2) * 100)% answered 429 after 2 s")

        // What was learned, as an operator reads it: near the limiter's rate, in text, JSON and for Prometheus.
        let json = try Command.run("spool-ctl", ["--spool", spool.path, "stats", "--json"]).stdout
        let learned = json.components(separatedBy: #""learned_rate":"#).dropFirst().first
            .flatMap { Double($0.prefix { $0 != "," }) } ?? 0
        #expect(learned >= 0.6 * Double(rate) && learned <= 1.4 * Double(rate), "learned \(learned)/s: \(json)")
        let text = try Command.run("spool-ctl", ["--spool", spool.path, "stats"]).stdout
        #expect(text.contains("/s learned ("), "\(text)")
        let prometheus = try Command.run("spool-ctl", ["--spool", spool.path, "stats", "--prometheus"]).stdout
        #expect(prometheus.contains("# TYPE spool_origin_learned_rate gauge\n"))
        #expect(prometheus.contains(#"spool_origin_learned_rate{spool="\#(spool.path)",origin="http://127.0.0.1:\#(nginx.port)"} "#))

        // The next cron run starts from what this one learned.
        // Right after, as the issue asks: the limiter's burst has not refilled, which only makes it harder.
        try enqueue(spool, nginx, count: count, from: count)
        _ = try send(spool)
        let second = Array(answers(nginx).dropFirst(first.count))
        let start = second.first?.seconds ?? 0
        let early = { (list: [Answer], from: Double) in
            list.filter { $0.status == 429 && $0.seconds < from + 1 }.count
        }
        let (before, after) = (early(first, 0), early(second, start))
        #expect(after == 0 || after * 2 <= before, "429s in the first second: \(before) in the first run, \(after) in the second")
        print(
            "paced origin: nginx limit_req \(rate)r/s burst=8, \(count) writes on \(count) keys in "
                + "\(String(format: "%.1f", seconds)) s (ideal \(String(format: "%.1f", ideal)) s); "
                + "\(first.filter { $0.status == 429 }.count) of \(first.count) answered 429, "
                + "\(String(format: "%.1f", share429(first, after: 2) * 100))% after 2 s; learned \(learned)/s; "
                + "the next run: \(after) in "
                + "its first second (the first: \(before))")
    }

    @Test(.enabled(if: Nginx.binary != nil, "needs nginx"))
    func aLimiterThatSaysItsRateIsAlmostNeverExceeded() throws {
        let nginx = try limiter(
            rate: 40, headers: #"add_header RateLimit-Policy "40;w=1" always; add_header Retry-After 1 always;"#)
        let spool = TemporarySpool()
        try enqueue(spool, nginx, count: 400)
        let seconds = try send(spool)
        let all = answers(nginx)
        let refused = all.filter { $0.status == 429 }.count
        #expect(Set(all.filter { $0.status == 204 }.map(\.path)).count == 400)
        #expect(seconds >= 8, "400 writes in \(seconds) s: the limiter of 40/s limits nothing")
        #expect(Double(refused) <= 0.01 * Double(all.count), "\(refused) of \(all.count) answered 429")
        print("paced origin: RateLimit-Policy 40;w=1 and Retry-After: \(refused) of \(all.count) answered 429, "
            + "400 writes in \(String(format: "%.1f", seconds)) s")
    }

    @Test func a429KeepsTheOperationsPlaceAndItsAttempts() throws {
        let served = Locked<[String]>([])
        let server = try TestServer { request in
            let count = served.withLock { list in
                list.append(request.path)
                return list.count
            }
            // One accepted, then three refused: a mix, a rate limiter (refusing alone, it would be down).
            if (2...4).contains(count) { return .respond(429, [:], "") }
            return .respond(request.path == "/b" && count == 6 ? 500 : 204, [:], "")
        }
        defer { server.stop() }
        let spool = TemporarySpool()
        for (name, limit) in [("warm", 1), ("a", 1), ("b", 5), ("c", 5)] {
            try spool.enqueue([
                "PUT", server.baseURL + "/\(name)", "--key", "k", "--body", name, "--max-attempts", "\(limit)"])
        }
        let run = try Command.run("spool-send", ["--spool", spool.path, "--once", "-v", "--min-backoff", "60"])
        #expect(run.status == 0, "\(run.stderr)")
        // a: three 429s and then taken, with max_attempts 1: none of them was an attempt. b: a 500, which
        // still backs off (c waits behind it, in order).
        #expect(served.withLock { $0 } == ["/warm", "/a", "/a", "/a", "/a", "/b"], "\(served.withLock { $0 })")
        #expect(spool.names("failed").isEmpty)
        let waiting = spool.names("new").filter { !$0.hasPrefix(".") }
        #expect(waiting.count == 2 && waiting.contains { $0.contains("a=1") && $0.contains("e=500") }, "\(waiting)")
    }

    /// A pushed-back write is not sent again under its claim when that request, given its whole `--timeout`,
    /// could end past the lease (on a shared spool another host would take the claim meanwhile): the write
    /// goes back as it was, for the next run.
    @Test func aPushedBackWriteIsNotSentAgainPastTheLease() throws {
        let held = try HeldServer(holding: "/a", status: 429), server = held.server
        defer { server.stop() }
        let spool = TemporarySpool()
        try spool.enqueue(["PUT", server.baseURL + "/a", "--body", "a"])
        let (sender, _, errors) = try Command.start(
            "spool-send", ["--spool", spool.path, "--once", "-v", "--timeout", "5", "--lease", "6"])
        #expect(eventually(within: 20) { held.isHolding }, "the first request is at the server")
        // Answered once the claim is a second old: a second request (up to 5 s) could then no longer end
        // inside the lease (6 s), though half of it (3 s) has not passed.
        let claim = try #require(spool.names("cur").first, "claimed while its request is held")
        let since = try #require(claim.split(separator: ",").last.flatMap { Int64($0) }, "\(claim)")
        #expect(eventually(within: 5) { Timestamp.nowSeconds() >= since + 1 })
        held.release()
        sender.waitUntilExit()
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(sender.terminationStatus == 0, "\(said)")
        #expect(server.requests.count == 1, "sent once in the run: \(said)")
        let waiting = spool.operations("new")
        #expect(waiting.count == 1 && !waiting[0].contains("a="), "given back as it was: \(waiting)")
        #expect(spool.names("cur").isEmpty)
    }

    @Test func aLimitHalvedAndRestoredMidRunIsFollowed() throws {
        // nginx's limit_req cannot change its rate without a reload; the test server applies the same leaky
        // bucket (burst 8, the excess answered 429 at once) with 40/s, then 20/s from 6 s, then 40/s from 12 s.
        struct Bucket {
            var excess = 0.0, last: Double?, start: Double?
            var accepted: [Double] = []
        }
        let bucket = Locked(Bucket())
        let server = try TestServer { _ in
            let now = Date().timeIntervalSince1970
            let ok = bucket.withLock { bucket -> Bool in
                let start = bucket.start ?? now
                bucket.start = start
                let rate = now - start >= 6 && now - start < 12 ? 20.0 : 40.0
                let drained = max(0, bucket.excess - rate * (now - (bucket.last ?? now)))
                bucket.last = now
                guard drained < 8 else { bucket.excess = drained; return false }
                bucket.excess = drained + 1
                bucket.accepted.append(now - start)
                return true
            }
            return ok ? .respond(204, [:], "") : .respond(429, [:], "")
        }
        defer { server.stop() }
        let spool = TemporarySpool()
        let library = try spool.open()
        for i in 0..<700 {
            _ = try library.enqueue(try Operation(document: .object([
                ("method", .string("PUT")), ("url", .string("\(server.baseURL)/item/\(i)")), ("body", .string("\(i)"))
            ])))
        }
        _ = try send(spool)
        let accepted = bucket.withLock { $0.accepted }
        func rate(_ from: Double, _ to: Double) -> Double {
            Double(accepted.filter { $0 >= from && $0 < to }.count) / (to - from)
        }
        #expect(accepted.count == 700)
        #expect(rate(2, 6) >= 32, "before: \(rate(2, 6))/s of 40")
        #expect(rate(9, 12) >= 15 && rate(9, 12) <= 23, "halved: \(rate(9, 12))/s of 20")
        #expect(rate(16, 19) >= 30, "restored: \(rate(16, 19))/s of 40")
        print(
            "paced origin: a limit of 40/s, halved at 6 s and restored at 12 s: delivered "
                + [(2.0, 6.0), (9, 12), (16, 19)].map { "\(Int(rate($0.0, $0.1).rounded()))/s" }.joined(separator: ", ")
                + " in the seconds 2-6, 9-12 and 16-19")
    }
}
