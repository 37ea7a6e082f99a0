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

/// What the sender does with connections: reuse, timeouts, redirects, lost answers and dropped connections.
extension WorkerTests {
    @Test func connectionsAreReusedAndHeadersAreOurs() throws {
        let spool = TemporarySpool()
        let server = try TestServer { _ in .respond(204, [:], "") }
        defer { server.stop() }
        for i in 0..<20 {
            try spool.enqueue(["PUT", server.baseURL + "/doc", "--body", "\(i)", "--header", "Accept: application/json"]
            )
        }
        try spool.send(["--concurrency", "1"])
        #expect(server.requests.count == 20)
        #expect(server.connectionCount <= 2, "keep-alive: \(server.connectionCount) connections for 20 requests")
        let request = try #require(server.requests.first)
        #expect(request.header("Accept") == "application/json")
        #expect(request.header("User-Agent") == "spool-send/\(Version.current)")
        #expect(request.header("Content-Length") == "1")
        // Nothing of the client's own that a server could mistake.
        for name in ["Expect", "Accept-Encoding", "Content-Type", "Transfer-Encoding"] {
            #expect(request.header(name) == nil, "\(name)")
        }
    }
}

extension WorkerTests {
    @Test func slowServerCostsTheTimeoutNotMore() throws {
        let spool = TemporarySpool()
        let server = try TestServer { _ in .delayed(5, 204) }
        defer { server.stop() }
        try spool.enqueue(["PUT", server.baseURL + "/slow"])
        let started = Date()
        try spool.send(["--timeout", "1"])
        let elapsed = Date().timeIntervalSince(started)
        #expect(elapsed < 3, "took \(elapsed) s")
        #expect(spool.waiting().first?.state?.lastError == "timeout")
        #expect(spool.names("cur").isEmpty)
        #expect(eventually(within: 10) { server.hungUp == 1 }, "the sender hung up at its timeout, unanswered")
    }
}

extension WorkerTests {
    @Test func redirectIsNotFollowedAndLostResponseIsRetried() throws {
        let spool = TemporarySpool()
        let resource = VersionedResource(loseResponse: { $0 == 1 })
        let server = try TestServer { request in
            request.path == "/old" ? .respond(307, ["Location": "/new"], "") : resource.handle(request)
        }
        defer { server.stop() }
        let moved = try spool.enqueue(["PUT", server.baseURL + "/old", "--body", "payload"])
        try spool.send()
        #expect(server.requests.filter { $0.path == "/old" }.count == 1)
        #expect(!server.requests.contains { $0.path == "/new" }, "the redirect is not followed, so no empty-bodied PUT")
        #expect(spool.operations("failed") == [moved])
        // Lost on a fresh connection: libcurl sends again by itself only what a reused one lost.
        try spool.enqueue(["PUT", server.baseURL + "/doc", "--body", "edit"])
        try spool.send()
        #expect(spool.waiting().first?.state?.lastError == "lost")
        try spool.send(["--flush"])
        #expect(resource.writes == 1)
        #expect(spool.names("new").isEmpty)
        let keys = server.requests.filter { $0.path == "/doc" }.map { $0.header("Idempotency-Key") }
        #expect(keys.count == 2 && keys[0] == keys[1])
        #expect(server.requests.last?.header("User-Agent") == "spool-send/\(Version.current)")
    }
}

extension WorkerTests {
    @Test func droppedKeepAliveConnectionCostsNoWait() throws {
        let spool = TemporarySpool()
        let count = Locked(0)
        let server = try TestServer { _ in
            count.withLock {
                $0 += 1; return $0
            } % 4 == 3 ? .close : .respond(204, [:], "")
        }
        defer { server.stop() }
        for i in 0..<12 { try spool.enqueue(["PUT", server.baseURL + "/k\(i % 2)", "--body", "\(i)"]) }
        let started = Date()
        try spool.send(["--concurrency", "1"])
        let elapsed = Date().timeIntervalSince(started)
        #expect(
            spool.names("new").isEmpty,
            "each dropped request went again at once on a fresh connection: \(spool.names("new"))")
        #expect(elapsed < 2, "took \(elapsed) s: a dropped connection must not wait for the 30 s timeout")
        #expect(server.connectionCount < server.requests.count, "connections are still reused")
    }
}
