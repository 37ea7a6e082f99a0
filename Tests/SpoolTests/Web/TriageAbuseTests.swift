import Foundation
import SpoolTestSupport
import Testing
@testable import Spool
@testable import SpoolSystem
@testable import SpoolWeb

/// The triage page against a user who means harm: numbers that overflow, names that are not operations,
/// tokens from elsewhere or too old, a user who may only look, and a log line forged through a form.
@Suite struct TriageAbuseTests {
    /// A spool with one failed write, and its id.
    func fixture() throws -> (TemporarySpool, TestServer, failed: String) {
        let spool = TemporarySpool()
        let server = try TestServer { _ in .respond(400, [:], "no") }
        let failed = try spool.enqueue(["PUT", server.baseURL + "/bad", "--body", "b"])
        try spool.send()
        try #require(spool.operations("failed") == [failed])
        return (spool, server, failed)
    }

    @Test func pageNumbersAndIdsAreCheckedBeforeUse() throws {
        let (spool, server, failed) = try fixture()
        defer { server.stop() }
        for page in ["9223372036854775807", "1000001", "-1", "x"] {
            let answer = try spool.cgi(query: "view=failed&page=\(page)")
            #expect(answer.status == 400, "page=\(page): \(answer.status) \(answer.body.prefix(200))")
        }
        let past = try spool.cgi(query: "view=failed&page=1000000")
        #expect(past.status == 200 && past.body.contains("Page 1 of 1."), "the last page: \(past.body)")
        let why = try spool.cgi(query: "id=\(failed).why")
        #expect(why.status == 404, "a reason file is not an operation: \(why.status)")
        let token = try #require(formToken(try spool.cgi().body, action: "discard"))
        let discard = try spool.cgi("POST", form: "token=\(token)&action=discard&id=\(failed).why")
        #expect(discard.status == 400, "\(discard.status)")
        #expect(spool.names("failed").sorted() == [failed, failed + ".why"])
        let show = try Command.run("spool-ctl", ["--spool", spool.path, "discard", "--yes", failed + ".why"])
        #expect(show.status != 0 && spool.names("failed").count == 2, "spool-ctl discards a reason file")
    }

    @Test func aTokenServesOneUserOneActionForAWhile() throws {
        let (spool, server, failed) = try fixture()
        defer { server.stop() }
        _ = try spool.cgi()  // makes the secret
        let secret = try CSRFToken.load(path: spool.secretPath, spoolPath: spool.path)
        let now = Timestamp.nowSeconds()
        let expired = secret.token(
            user: "ann", spoolPath: spool.path, action: "retry", issuedAt: now - CSRFToken.lifetimeSeconds - 5)
        let future = secret.token(user: "ann", spoolPath: spool.path, action: "retry", issuedAt: now + 3600)
        let foreign = secret.token(user: "bob", spoolPath: spool.path, action: "retry", issuedAt: now)
        for token in [expired, future, foreign] {
            let answer = try spool.cgi("POST", form: "token=\(token)&action=retry&id=\(failed)")
            #expect(answer.status == 403, "\(token): \(answer.status)")
        }
        #expect(spool.operations("failed") == [failed])
        let fresh = secret.token(user: "ann", spoolPath: spool.path, action: "retry", issuedAt: now - 60)
        let answer = try spool.cgi("POST", form: "token=\(fresh)&action=retry&id=\(failed)")
        #expect(answer.status == 200 && spool.operations("failed").isEmpty, "\(answer.status) \(answer.body)")
    }

    @Test func onlyTheActorsSpoolConfNamesMayAct() throws {
        let (spool, server, failed) = try fixture()
        defer { server.stop() }
        let actors = ["SPOOL_CGI_ACTORS": "bob, carol"]
        let looked = try spool.cgi(environment: actors)
        #expect(looked.status == 200 && formToken(looked.body) == nil && looked.body.contains("You may look"))
        let secret = try CSRFToken.load(path: spool.secretPath, spoolPath: spool.path)
        let token = secret.token(user: "ann", spoolPath: spool.path, action: "retry", issuedAt: Timestamp.nowSeconds())
        let refused = try spool.cgi("POST", form: "token=\(token)&action=retry&id=\(failed)", environment: actors)
        #expect(refused.status == 403 && refused.body.contains("you may look"), "\(refused.body)")
        #expect(spool.operations("failed") == [failed])
        let bob = try spool.cgi(query: "id=\(failed)", user: "bob", environment: actors)
        let bobs = try #require(formToken(bob.body, action: "retry"))
        let acted = try spool.cgi("POST", form: "token=\(bobs)&action=retry&id=\(failed)", user: "bob",
                                  environment: actors)
        #expect(acted.status == 200 && spool.operations("failed").isEmpty, "\(acted.body)")
    }

    /// The page's log line: one per action, whatever the user's name (the web server's to check) holds.
    @Test func theAuditLogTakesNoForgedLine() throws {
        let (spool, server, failed) = try fixture()
        defer { server.stop() }
        let user = "mallory\nspool-ctl cgi: ann: spool-ctl discard --yes -- everything\u{1B}[2J"
        let token = try #require(formToken(try spool.cgi(user: user).body, action: "retry"))
        let answer = try spool.cgi("POST", form: "token=\(token)&action=retry&id=\(failed)", user: user)
        #expect(answer.status == 200, "\(answer.body)")
        #expect(answer.log.split(separator: "\n").count == 1, "\(answer.log)")
        #expect(!answer.log.contains("\u{1B}"), "\(answer.log)")
        #expect(answer.log.contains(#"mallory\nspool-ctl cgi: ann: spool-ctl discard --yes -- everything\x1b[2J: "#
            + "spool-ctl retry -- \(failed)"), "\(answer.log)")
    }
}
