import Foundation
import Glibc
import SpoolTestSupport
import Testing
@testable import Spool
@testable import SpoolNames
@testable import SpoolQueue
@testable import SpoolSystem

/// A producer's write stays theirs when the spool's owner rewrites it (`resolve --keep-mine`, `retry
/// --if-match`, the page's buttons): under their policy, in their order per key. The owner is nobody, the
/// producer uid 4242 (no account needed), root only sets the scene.
@Suite(.serialized) struct ProducerRewriteTests {
    /// A server whose resource is at "v2": a write made against "v1" is refused 412, any other taken.
    func conflictingServer() throws -> TestServer {
        try TestServer { request in
            if request.method == "GET" { return .respond(200, ["ETag": "\"v2\""], "theirs") }
            return request.header("If-Match") == "\"v1\"" ? .respond(412, [:], "") : .respond(204, [:], "")
        }
    }

    /// The name in `folder` of operation `id`.
    func name(_ spool: TemporarySpool, _ folder: String, _ id: String) -> String? {
        spool.names(folder).first { $0 == id || $0.hasPrefix(id + ":") }
    }

    @Test(.enabled(if: Nobody.unavailable == nil, "\(Nobody.unavailable ?? "")"))
    func keepMineAndRetryKeepTheProducersPolicyAndOrder() throws {
        let server = try conflictingServer()
        defer { server.stop() }
        let shared = try SharedSpool(policy: "* origin \(server.baseURL)\n")
        let spool = shared.spool
        let url = server.baseURL + "/doc"
        let id = try shared.produce(4242, ["PUT", url, "--if-match", "\"v1\"", "--body", "mine"])
        let sent = try shared.send()
        #expect(sent.status == 0 && spool.operations("conflict") == [id], "\(sent.stderr)")

        let resolved = try Nobody.run("spool-ctl", ["--spool", spool.path, "resolve", "--keep-mine", id])
        #expect(resolved.status == 0, "\(resolved.stderr)")
        let waiting = try #require(name(spool, "new", id))
        let state = try #require(QueueName(FileName(waiting))?.state, "\(waiting)")
        #expect(state.producer == 4242, "the name says whose write it stays: \(waiting)")
        #expect(state.keyHash == RetryState.keyHash(url, scope: 4242), "in the producer's order: \(waiting)")
        let status = try FileDescriptor.currentDirectory.status(of: FileName(spool.path + "/new/" + waiting))
        #expect(status.owner == 65534, "nobody, the owner, wrote the file")
        let listed = try Nobody.run("spool-ctl", ["--spool", spool.path, "list", "new", "--json"])
        #expect(listed.stdout.contains(#""dropped_by_uid":4242"#), "\(listed.stdout)")

        // The policy no longer lets producers send there: the rewritten write is still held to it.
        try "* origin http://127.0.0.1:9\n".write(toFile: shared.policyPath, atomically: false, encoding: .utf8)
        let refused = try shared.send()
        #expect(refused.status == 0, "\(refused.stderr)")
        #expect(server.requests.filter { $0.method == "PUT" }.count == 1, "sent as the owner's")
        #expect(spool.operations("failed") == [id])
        let why = spool.read("failed", id + ".why")
        #expect(why.contains("error: forbidden") && why.contains("producer-uid: 4242"), "\(why)")

        // Put back with another If-Match by the owner: still the producer's.
        let retried = try Nobody.run("spool-ctl", ["--spool", spool.path, "retry", "--if-match", "\"v3\"", id])
        #expect(retried.status == 0, "\(retried.stderr)")
        let again = try #require(name(spool, "new", id))
        #expect(QueueName(FileName(again))?.state?.producer == 4242, "\(again)")
    }

    /// The page's "Keep mine", run as the spool's owner (the web server's user, here nobody): the same call.
    @Test(.enabled(if: Nobody.unavailable == nil, "\(Nobody.unavailable ?? "")"))
    func keepMineFromThePageKeepsTheProducer() throws {
        let server = try conflictingServer()
        defer { server.stop() }
        let shared = try SharedSpool(policy: "* origin \(server.baseURL)\n")
        let id = try shared.produce(4242, ["PUT", server.baseURL + "/doc", "--if-match", "\"v1\"", "--body", "m"])
        _ = try shared.send()
        try #require(shared.spool.operations("conflict") == [id])
        let secrets = shared.spool.directory + "/cgi"
        mkdir(secrets, 0o700)
        chown(secrets, 65534, 65534)
        func cgi(_ method: String, query: String = "", form: String? = nil) throws -> CommandResult {
            var environment = [
                "GATEWAY_INTERFACE": "CGI/1.1", "REQUEST_METHOD": method, "QUERY_STRING": query,
                "SCRIPT_NAME": "/spool", "SPOOL_DIR": shared.spool.path, "REMOTE_USER": "ann",
                "SPOOL_CGI_SECRET": secrets + "/secret",
            ]
            if let form {
                environment["CONTENT_TYPE"] = "application/x-www-form-urlencoded"
                environment["CONTENT_LENGTH"] = String(form.utf8.count)
            }
            return try Nobody.run("spool-ctl", ["cgi"], environment: environment, stdin: form.map { Data($0.utf8) })
        }
        let page = try cgi("GET", query: "id=\(id)")
        let token = try #require(formToken(page.stdout, action: "keep-mine"), "\(page.stdout)")
        let kept = try cgi("POST", form: "token=\(token)&action=keep-mine&id=\(id)")
        #expect(kept.stdout.hasPrefix("Status: 200"), "\(kept.stdout)")
        let waiting = try #require(name(shared.spool, "new", id))
        #expect(QueueName(FileName(waiting))?.state?.producer == 4242, "\(waiting)")
    }

    /// `u=` is believed of a file of the owner or root only: a producer's file is theirs whatever its name says.
    @Test func aProducersNameCannotClaimAnothersWrite() throws {
        let spool = TemporarySpool()
        let opened = try spool.open()
        let name = FileName("x:o=1,k=0000000000000001,u=4242")
        #expect(opened.users.producer(owner: 5151, name: name) == 5151)
        #expect(opened.users.producer(owner: opened.users.owner, name: name) == 4242)
        #expect(opened.users.producer(owner: 0, name: name) == 4242)
        #expect(opened.users.producer(owner: opened.users.owner, name: FileName("x:o=1,k=0000000000000001")) == opened.users.owner)
        #expect(QueueName(FileName("x:o=1,k=0000000000000001,u=04242")) == nil)
        #expect(QueueName(FileName("x:o=1,k=0000000000000001,u=4294967295")) == nil)
        #expect(QueueName(name)?.fileName == name, "written back as read")
    }
}
