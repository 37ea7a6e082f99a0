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

/// A JSON document on a server that answers a stale If-Match with a bare 412 (no ETag), as Apache
/// mod_dav does, and gives its version only to a GET.
final class JSONDocumentResource: @unchecked Sendable {
    struct State {
        var body = #"{"title":"theirs","tags":["a","b"],"n":7}"#
        var version = 7
        var writes: [TestServer.Request] = []
    }
    let state = Locked(State())

    func handle(_ request: TestServer.Request) -> TestServer.Reply {
        state.withLock { state in
            let etag = "\"v\(state.version)\""
            if request.method == "GET" { return .respond(200, ["ETag": etag, "Content-Type": "application/json"], state.body) }
            state.writes.append(request)
            guard request.header("If-Match") == etag else { return .respond(412, [:], "") }
            state.version += 1
            state.body = request.text
            return .respond(204, ["ETag": "\"v\(state.version)\""], "")
        }
    }

    var body: String { state.withLock { $0.body } }
    var writes: [TestServer.Request] { state.withLock { $0.writes } }
}

/// `spool-ctl show` and `resolve` on a conflict: mine beside theirs, then keep mine, keep theirs or edit.
@Suite struct ResolveTests {
    func ctl(_ spool: TemporarySpool, _ arguments: [String], environment: [String: String] = [:]) throws
        -> CommandResult
    {
        try Command.run("spool-ctl", ["--spool", spool.path] + arguments, environment: environment)
    }

    /// A spool with one JSON write in conflict with `resource`, and its id.
    func conflicted(_ spool: TemporarySpool, _ server: TestServer, fetch: Bool = true) throws -> String {
        let id = try spool.enqueue([
            "PUT", server.baseURL + "/doc", "--if-match", "\"v6\"", "--json", #"{"title":"mine","tags":["a","b"],"n":6}"#
        ])
        try spool.send(fetch ? [] : ["--no-fetch-on-conflict"])
        #expect(spool.operations("conflict") == [id])
        return id
    }

    @Test func showPrintsMineAndTheirsAndTheirDiff() throws {
        let spool = TemporarySpool()
        let resource = JSONDocumentResource()
        let server = try TestServer { resource.handle($0) }
        defer { server.stop() }
        let id = try conflicted(spool, server)
        let shown = try ctl(spool, ["show", id])
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.stdout.contains("mine (made against \"v6\"):\n  {\n    \"title\": \"mine\","), "\(shown.stdout)")
        #expect(shown.stdout.contains("theirs (ETag \"v7\"):\n  {\n    \"title\": \"theirs\","), "\(shown.stdout)")
        let diff = try ctl(spool, ["show", "--diff", id])
        #expect(diff.status == 0)
        #expect(diff.stdout.hasPrefix("--- theirs (ETag \"v7\")\n+++ mine (made against \"v6\")\n@@ "), "\(diff.stdout)")
        #expect(diff.stdout.contains("\n-  \"title\": \"theirs\",\n+  \"title\": \"mine\",\n"), "\(diff.stdout)")
        #expect(diff.stdout.contains("\n-  \"n\": 7\n+  \"n\": 6\n"), "\(diff.stdout)")
        #expect(diff.stdout.contains("\n   \"tags\": [\n"), "unchanged lines are context: \(diff.stdout)")
    }

    @Test func keepMineWritesOverTheFetchedVersionWithANewKey() throws {
        let spool = TemporarySpool()
        let resource = JSONDocumentResource()
        let server = try TestServer { resource.handle($0) }
        defer { server.stop() }
        let id = try conflicted(spool, server)
        let firstKey = try #require(resource.writes.first?.header("Idempotency-Key"))
        let resolved = try ctl(spool, ["resolve", id, "--keep-mine"])
        #expect(resolved.status == 0, "\(resolved.stderr)")
        #expect(resolved.stdout.contains("\(id) (PUT \(server.baseURL)/doc): back in new/ with If-Match \"v7\""))
        #expect(spool.operations("conflict").isEmpty && spool.names("conflict").isEmpty)
        try spool.send()
        #expect(resource.body == #"{"title":"mine","tags":["a","b"],"n":6}"#)
        #expect(resource.writes.last?.header("If-Match") == "\"v7\"")
        #expect(resource.writes.last?.header("Idempotency-Key") != firstKey, "a new request, a new key")
        #expect(spool.names("new").isEmpty && spool.names("conflict").isEmpty)
    }

    @Test func keepTheirsDiscardsMine() throws {
        let spool = TemporarySpool()
        let resource = JSONDocumentResource()
        let server = try TestServer { resource.handle($0) }
        defer { server.stop() }
        let id = try conflicted(spool, server)
        let resolved = try ctl(spool, ["resolve", id, "--keep-theirs"])
        #expect(resolved.status == 0, "\(resolved.stderr)")
        #expect(resolved.stdout.contains("\(id) (PUT \(server.baseURL)/doc): discarded; the server's version \"v7\" stands"))
        #expect(spool.names("conflict").isEmpty && spool.names("new").isEmpty)
        try spool.send()
        #expect(resource.writes.count == 1, "nothing more was sent")
        #expect(resource.body.contains("theirs"))
    }

    @Test func editSendsTheMergedBody() throws {
        let spool = TemporarySpool()
        let resource = JSONDocumentResource()
        let server = try TestServer { resource.handle($0) }
        defer { server.stop() }
        let id = try conflicted(spool, server)
        // The editor sees the merge view, keeps their title and my count, and saves.
        let editor = spool.directory + "/editor"
        writeExecutable(
            editor,
            """
            #!/bin/sh
            grep -q '^<<<<<<< mine$' "$1" && grep -q '^>>>>>>> theirs$' "$1" || exit 3
            cp "$1" "\(spool.directory)/seen"
            printf '{"title":"theirs","tags":["a","b"],"n":8}\\n' > "$1"
            """)
        let resolved = try ctl(spool, ["resolve", id, "--edit"], environment: ["VISUAL": "", "EDITOR": editor])
        #expect(resolved.status == 0, "\(resolved.stderr)")
        #expect(resolved.stdout.contains("back in new/ with the edited body and If-Match \"v7\""), "\(resolved.stdout)")
        let seen = try String(contentsOfFile: spool.directory + "/seen", encoding: .utf8)
        #expect(seen.contains("<<<<<<< mine\n  \"title\": \"mine\",\n=======\n  \"title\": \"theirs\",\n>>>>>>> theirs\n"))
        try spool.send()
        #expect(resource.body == #"{"title":"theirs","tags":["a","b"],"n":8}"#)
        #expect(resource.writes.last?.header("Content-Type") == "application/json")
    }

    @Test func anEditThatIsNotJSONChangesNothing() throws {
        let spool = TemporarySpool()
        let resource = JSONDocumentResource()
        let server = try TestServer { resource.handle($0) }
        defer { server.stop() }
        let id = try conflicted(spool, server)
        let before = spool.read("conflict", id)
        // `true` saves the merge view as it was, markers and all.
        let resolved = try ctl(spool, ["resolve", id, "--edit"], environment: ["VISUAL": "true"])
        #expect(resolved.status == 65)
        #expect(resolved.stderr.contains("spool-ctl: error: \(id): the edited body is not JSON"), "\(resolved.stderr)")
        #expect(resolved.stderr.contains("nothing was changed"))
        #expect(spool.read("conflict", id) == before)
        #expect(spool.names("new").isEmpty)
    }

    @Test func keepMineIsRefusedWithoutAKnownETag() throws {
        let spool = TemporarySpool()
        let resource = JSONDocumentResource()
        let server = try TestServer { resource.handle($0) }
        defer { server.stop() }
        let id = try conflicted(spool, server, fetch: false)
        for choice in ["--keep-mine", "--edit"] {
            let refused = try ctl(spool, ["resolve", id, choice], environment: ["VISUAL": "true"])
            #expect(refused.status == 65)
            #expect(refused.stderr.contains("has no known ETag"), "\(refused.stderr)")
            #expect(refused.stderr.contains("spool-ctl retry --if-match ETAG \(id)"), "\(refused.stderr)")
        }
        #expect(spool.operations("conflict") == [id])
        let shown = try ctl(spool, ["show", id])
        #expect(shown.stdout.contains("theirs:\n  (not fetched"), "\(shown.stdout)")
    }

    @Test func aWeakETagIsNotWrittenOver() throws {
        let spool = TemporarySpool()
        let server = try TestServer { request in
            request.method == "GET" ? .respond(200, ["ETag": "W/\"v7\""], "theirs") : .respond(412, [:], "")
        }
        defer { server.stop() }
        let id = try spool.enqueue(["PUT", server.baseURL + "/doc", "--if-match", "\"v6\"", "--body", "mine"])
        try spool.send()
        let refused = try ctl(spool, ["resolve", id, "--keep-mine"])
        #expect(refused.status == 65)
        #expect(refused.stderr.contains("only a weak ETag (W/\"v7\"), which If-Match never matches"), "\(refused.stderr)")
        #expect(spool.operations("conflict") == [id])
    }

    @Test func resolveTakesOneConflictAndOneChoice() throws {
        let spool = TemporarySpool()
        let server = try TestServer { _ in .respond(400, [:], "bad") }
        defer { server.stop() }
        let failed = try spool.enqueue(["PUT", server.baseURL + "/x", "--body", "b"])
        try spool.send()
        let notConflict = try ctl(spool, ["resolve", failed, "--keep-mine"])
        #expect(notConflict.status == 65)
        #expect(notConflict.stderr.contains("\(failed) is in failed/, not in conflict/"))
        for arguments in [["resolve", failed], ["resolve", failed, "--keep-mine", "--keep-theirs"], ["resolve", "--edit"]] {
            let usage = try ctl(spool, arguments)
            #expect(usage.status == 64, "\(arguments): \(usage.stderr)")
        }
        #expect(spool.operations("failed") == [failed])
    }
}
