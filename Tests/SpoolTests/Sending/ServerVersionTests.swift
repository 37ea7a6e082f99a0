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

/// When a write lands in `conflict/`, spool-send fetches the resource once and keeps the server's version
/// in the conflict's reason, so that a person can compare and resolve, even when the 412 said nothing.
@Suite struct ServerVersionTests {
    /// A resource whose 412 carries no ETag (as Apache mod_dav's does); its GET does.
    final class SilentResource: @unchecked Sendable {
        let requests = Locked<[TestServer.Request]>([])
        let getReply: TestServer.Reply
        init(getReply: TestServer.Reply = .respond(
            200, ["ETag": "\"v7\"", "Content-Type": "application/json", "Last-Modified": "Tue, 01 Dec 2026 10:00:00 GMT"],
            #"{"title":"theirs","n":7}"#))
        {
            self.getReply = getReply
        }
        func handle(_ request: TestServer.Request) -> TestServer.Reply {
            requests.withLock { $0.append(request) }
            return request.method == "GET" ? getReply : .respond(412, [:], "precondition failed")
        }
        var gets: [TestServer.Request] { requests.withLock { $0.filter { $0.method == "GET" } } }
    }

    @Test func theServersVersionIsKeptBesideTheConflict() throws {
        let spool = TemporarySpool()
        let resource = SilentResource()
        let server = try TestServer { resource.handle($0) }
        defer { server.stop() }
        let id = try spool.enqueue([
            "PUT", server.baseURL + "/doc", "--if-match", "\"v6\"", "--json", #"{"title":"mine","n":6}"#
        ])
        try spool.send()
        #expect(spool.operations("conflict") == [id])
        let reason = try spool.open().reason(of: id, in: .conflict, withBody: true)
        #expect(reason["status"] == "412")
        #expect(reason["etag"] == nil, "the 412 carried none")
        #expect(reason["theirs-status"] == "200")
        #expect(reason["theirs-etag"] == "\"v7\"")
        #expect(reason["theirs-content-type"] == "application/json")
        #expect(reason["theirs-last-modified"] == "Tue, 01 Dec 2026 10:00:00 GMT")
        #expect(reason.body.map { String(decoding: $0, as: UTF8.self) } == #"{"title":"theirs","n":7}"#)
        // One GET, asking for the write's own type, carrying nothing of the write.
        let gets = resource.gets
        #expect(gets.count == 1)
        #expect(gets.first?.path == "/doc")
        #expect(gets.first?.header("Accept") == "application/json")
        #expect(gets.first?.header("If-Match") == nil)
        #expect(gets.first?.header("Idempotency-Key") == nil)
        #expect(gets.first?.body.isEmpty == true)
        // The file a person reads: the fields, a blank line, the server's version.
        #expect(spool.read("conflict", id + ".why").hasSuffix("\n\n" + #"{"title":"theirs","n":7}"#))
    }

    /// The read is a request like any other to its origin: with `max-concurrency = 1`, never beside another.
    @Test func theReadKeepsToTheOriginsWindow() throws {
        let spool = TemporarySpool()
        let inFlight = Locked((now: 0, most: 0))
        let server = try TestServer { request in
            inFlight.withLock { $0.now += 1; $0.most = max($0.most, $0.now) }
            // A slow server, so that two requests sent together are at it together.
            usleep(200_000)
            inFlight.withLock { $0.now -= 1 }
            return request.method == "GET" ? .respond(200, ["ETag": "\"v7\""], "theirs")
                : .respond(request.path == "/conflicting" ? 412 : 204, [:], "")
        }
        defer { server.stop() }
        let conflicting = try spool.enqueue(["PUT", server.baseURL + "/conflicting", "--if-match", "\"v6\"", "-d", "a"])
        // Writes of other keys behind it: whichever goes first, some are left to go while the read is made.
        for index in 1...3 { try spool.enqueue(["PUT", server.baseURL + "/other", "--key", "k\(index)", "-d", "b"]) }
        let configuration = spool.directory + "/spool.conf"
        try "[\(server.baseURL)]\nmax-concurrency = 1\n".write(toFile: configuration, atomically: true, encoding: .utf8)
        let sent = try Command.run(
            "spool-send", ["--spool", spool.path, "--once", "--concurrency", "2", "--config", configuration])
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(server.requests.map { "\($0.method) \($0.path)" }.sorted()
                == ["GET /conflicting", "PUT /conflicting", "PUT /other", "PUT /other", "PUT /other"])
        #expect(inFlight.withLock { $0.most } == 1, "one request at a time at the origin")
        #expect(try spool.open().reason(of: conflicting, in: .conflict, withBody: true)["theirs-etag"] == "\"v7\"")
    }

    @Test func aFailedFetchIsNotedAndTheConflictFiledAllTheSame() throws {
        let spool = TemporarySpool()
        let resource = SilentResource(getReply: .close)
        let server = try TestServer { resource.handle($0) }
        defer { server.stop() }
        let id = try spool.enqueue(["PUT", server.baseURL + "/doc", "--if-match", "\"v6\"", "--body", "mine"])
        try spool.send()
        #expect(spool.operations("conflict") == [id])
        let reason = try spool.open().reason(of: id, in: .conflict, withBody: true)
        #expect(reason["theirs-error"]?.contains("could not be fetched") == true, "\(reason.fields)")
        #expect(reason["theirs-etag"] == nil)
        #expect(reason.body == nil)
    }

    @Test func noFetchOnConflictMakesNoRead() throws {
        let spool = TemporarySpool()
        let resource = SilentResource()
        let server = try TestServer { resource.handle($0) }
        defer { server.stop() }
        let id = try spool.enqueue(["PUT", server.baseURL + "/doc", "--if-match", "\"v6\"", "--body", "mine"])
        try spool.send(["--no-fetch-on-conflict"])
        #expect(spool.operations("conflict") == [id])
        #expect(resource.gets.isEmpty)
        #expect(try spool.open().reason(of: id, in: .conflict)["theirs-status"] == nil)
    }

    @Test func anOriginConfiguredNotToBeReadIsNotRead() throws {
        let spool = TemporarySpool()
        let resource = SilentResource()
        let server = try TestServer { resource.handle($0) }
        defer { server.stop() }
        let origin = try Operation.origin(of: server.baseURL)
        let configuration = spool.directory + "/spool.conf"
        try "[\(origin)]\nfetch-on-conflict = no\n".write(toFile: configuration, atomically: true, encoding: .utf8)
        let id = try spool.enqueue(["PUT", server.baseURL + "/doc", "--if-match", "\"v6\"", "--body", "mine"])
        try spool.send(["--config", configuration])
        #expect(spool.operations("conflict") == [id])
        #expect(resource.gets.isEmpty)
    }

    @Test func aLargeVersionIsCutAtItsBound() throws {
        let spool = TemporarySpool()
        let large = String(repeating: "x", count: ServerVersion.maxBodyBytes * 4)
        let resource = SilentResource(getReply: .respond(200, ["ETag": "\"big\""], large))
        let server = try TestServer { resource.handle($0) }
        defer { server.stop() }
        let id = try spool.enqueue(["PUT", server.baseURL + "/doc", "--if-match", "\"v6\"", "--body", "mine"])
        try spool.send()
        let reason = try spool.open().reason(of: id, in: .conflict, withBody: true)
        #expect(reason["theirs-etag"] == "\"big\"")
        #expect(reason.body?.count == ServerVersion.maxBodyBytes)
        #expect(reason["theirs-cut"] != nil)
    }

    @Test func aReasonFileRoundTripsItsBody() {
        let reason = FilingReason([("reason", "conflict"), ("theirs-etag", "\"v1\"")], body: Array("a\n\nb\n".utf8))
        let text = reason.text(
            id: "x", folder: .conflict, source: .cur, name: FileName("x"), at: 0)
        let parsed = FilingReason.parseFile(text)
        #expect(parsed["theirs-etag"] == "\"v1\"")
        #expect(parsed.body == Array("a\n\nb\n".utf8))
        #expect(FilingReason.parseFile(Array("reason: r\n".utf8)).body == nil)
    }
}
