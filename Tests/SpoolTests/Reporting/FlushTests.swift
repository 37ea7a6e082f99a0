import Foundation
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

/// `spool-ctl flush --origin O` (postqueue -s) lifts the pause an origin asked for and makes its deferred
/// operations due; `list --origin` and `--older-than` filter the listing.
@Suite struct FlushTests {
    @Test func flushLiftsAPauseThatFlushAndRetryNowKeep() throws {
        let spool = TemporarySpool()
        let busy = Locked(true)
        let server = try TestServer { _ in
            busy.withLock { $0 } ? .respond(429, ["Retry-After": "3600"], "slow down") : .respond(204, [:], "")
        }
        defer { server.stop() }
        let other = try TestServer { _ in .respond(502, [:], "") }
        defer { other.stop() }
        let first = try spool.enqueue(["PUT", server.baseURL + "/a"])
        try spool.enqueue(["PUT", other.baseURL + "/elsewhere"])
        try spool.send()
        #expect(server.requests.count == 1)
        busy.withLock { $0 = false }

        // The pause holds against the tools that only ignore retry times.
        #expect(try Command.run("spool-ctl", ["--spool", spool.path, "retry", "--now"]).status == 0)
        try spool.send(["--flush"])
        #expect(server.requests.count == 1, "paused: nothing sent to \(server.baseURL)")

        let second = try spool.enqueue(["PUT", server.baseURL + "/b", "--not-before", "+1h"])
        let origin = try Operation.origin(of: server.baseURL)
        let flush = try Command.run("spool-ctl", ["--spool", spool.path, "flush", "--origin", server.baseURL + "/"])
        #expect(flush.status == 0, "\(flush.stderr)")
        #expect(flush.stdout.contains("\(origin): pause until ") && flush.stdout.contains(" lifted"), "\(flush.stdout)")
        #expect(
            flush.stdout.contains("\(second): due now") && !flush.stdout.contains(first),
            "only the deferred one: \(flush.stdout)")
        #expect(flush.stdout.hasSuffix("\(origin): 1 deferred operation(s) due now\n"))
        try spool.send()
        // Two keys, two lanes: once the origin's connection is up they go in either order.
        let paths = server.requests.map(\.path)
        #expect(paths.first == "/a" && paths.dropFirst().sorted() == ["/a", "/b"], "sent at once: \(paths)")
        #expect(!spool.waiting().map(\.id).contains(second))
        #expect(!spool.waiting().map(\.id).contains(first))
        #expect(spool.waiting().count == 1, "the other origin's operation still waits its backoff")
        #expect(spool.waiting().first?.state?.dueSeconds ?? 0 > Timestamp.nowSeconds())

        for arguments in [
            ["flush"], ["flush", "--origin", "not a url"], ["flush", "--origin", "http://h/path"],
            ["list", "--older-than", "soon"]
        ] {
            #expect(try Command.run("spool-ctl", ["--spool", spool.path] + arguments).status == 64, "\(arguments)")
        }
    }

    @Test func listFiltersByOriginAndAge() throws {
        let spool = TemporarySpool()
        let old = QueueName(
            id: "old-one", state: RetryState(orderMicroseconds: (Timestamp.nowSeconds() - 7200) * 1_000_000, keyHash: 1)
        )
        spool.drop("new", old.fileName.escaped, #"{"method":"PUT","url":"http://a.example/x"}"#)
        let recent = try spool.enqueue(["PUT", "http://a.example/y"])
        let elsewhere = try spool.enqueue(["PUT", "http://b.example/z"])
        func ids(_ arguments: [String]) throws -> [String] {
            let result = try Command.run("spool-ctl", ["--spool", spool.path, "list", "--json"] + arguments)
            #expect(result.status == 0, "\(result.stderr)")
            return result.lines.compactMap {
                (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["id"] as? String
            }
        }
        #expect(try ids([]) == ["old-one", recent, elsewhere])
        #expect(try ids(["--origin", "http://a.example"]) == ["old-one", recent])
        #expect(try ids(["--older-than", "1h"]) == ["old-one"])
        #expect(try ids(["--origin", "http://b.example", "--older-than", "1h"]).isEmpty)
        let text = try Command.run(
            "spool-ctl", ["--spool", spool.path, "list", "new", "--origin", "HTTP://B.example:80"])
        #expect(text.lines.count == 2 && text.lines[1].hasPrefix(elsewhere), "\(text.stdout)")
    }
}
