import Foundation
import SpoolTestSupport
import Testing
@testable import Spool
@testable import SpoolSystem
@testable import SpoolQueue
@testable import SpoolWeb

/// One answer of `spool-ctl cgi`, as the web server reads it.
struct CGIAnswer {
    let status: Int
    let headers: [String]
    let body: String
    let log: String
}

extension TemporarySpool {
    /// The secret file the tests' page uses: beside the spool, never inside it.
    var secretPath: String { directory + "/cgi.secret" }

    /// Runs the triage page once, as a web server would: CGI meta-variables, and a form body on stdin.
    func cgi(_ method: String = "GET", query: String = "", form: String? = nil, user: String? = "ann",
             secret: Bool = true, environment more: [String: String] = [:]) throws -> CGIAnswer {
        var environment = more.merging([
            "GATEWAY_INTERFACE": "CGI/1.1", "REQUEST_METHOD": method, "QUERY_STRING": query,
            "SCRIPT_NAME": "/cgi-bin/spool.cgi", "SPOOL_DIR": path, "REMOTE_USER": user ?? "",
            "SPOOL_CGI_SECRET": secret ? secretPath : "",
        ]) { $1 }
        if let form {
            environment["CONTENT_TYPE"] = "application/x-www-form-urlencoded"
            environment["CONTENT_LENGTH"] = String(form.utf8.count)
        }
        let result = try Command.run("spool-ctl", ["cgi"], environment: environment, stdin: form.map { Data($0.utf8) })
        #expect(result.status == 0, "\(result.stderr)")
        let parts = result.stdout.components(separatedBy: "\r\n\r\n")
        let headers = parts[0].components(separatedBy: "\r\n")
        let status = Int(headers.first?.split(separator: " ").dropFirst().first ?? "") ?? 0
        return CGIAnswer(
            status: status, headers: headers, body: parts.dropFirst().joined(separator: "\r\n\r\n"), log: result.stderr)
    }
}

/// The token the page's form for `action` carries (the first form's, any action, when nil).
func formToken(_ page: String, action: String? = nil) -> String? {
    let pattern = #"name="token" value="[0-9]+\.[0-9a-f]{64}"><input type="hidden" name="action" value=""#
        + (action ?? "[a-z-]+") + "\""
    guard let range = page.range(of: pattern, options: .regularExpression) else { return nil }
    let match = page[range].dropFirst(#"name="token" value=""#.count)
    return String(match.prefix { $0 != "\"" })
}

/// The triage page run as the web server runs it: a real process per request, with the CGI meta-variables.
@Suite struct TriageCGITests {
    /// A spool with one conflict whose two versions hold markup, one failed write, and waiting work.
    func fixture() throws -> (TemporarySpool, TestServer, conflict: String, failed: String) {
        let spool = TemporarySpool()
        let server = try TestServer { request in
            if request.path == "/bad" { return .respond(400, [:], "<b>bad</b> request") }
            if request.method == "GET" {
                return .respond(200, ["ETag": "\"v2\"", "Content-Type": "application/json"],
                                #"{"note":"<script>alert('theirs')</script>"}"#)
            }
            return .respond(412, [:], "")
        }
        let conflict = try spool.enqueue([
            "PUT", server.baseURL + "/doc", "--if-match", "\"v1\"", "--json", #"{"note":"<script>alert('mine')</script>"}"#
        ])
        let failed = try spool.enqueue(["PUT", server.baseURL + "/bad", "--body", "x"])
        try spool.send()
        try spool.enqueue(["PUT", "http://127.0.0.1:\(TestServer.deadPort())/later", "--body", "y"])
        try spool.enqueue(["--handler", "thumbnail", "--body", "z"])
        return (spool, server, conflict, failed)
    }

    @Test func theOverviewShowsCountsOriginsHandlersAndFiledWork() throws {
        let (spool, server, conflict, failed) = try fixture()
        defer { server.stop() }
        let page = try spool.cgi()
        #expect(page.status == 200)
        #expect(page.headers.contains("Content-Type: text/html; charset=utf-8"))
        #expect(page.headers.contains { $0.hasPrefix("Content-Security-Policy: default-src 'none'") })
        #expect(page.body.contains("<td>waiting (new/)</td><td class=\"n\">2</td>"), "\(page.body)")
        #expect(page.body.contains("<td>conflict</td><td class=\"n\">1</td>"))
        #expect(page.body.contains("<td>thumbnail</td><td class=\"n\">1</td>"), "the handler jobs waiting")
        #expect(page.body.contains("?id=\(conflict)") && page.body.contains("?id=\(failed)"))
        #expect(page.body.contains("the server rejected the write (HTTP 400)"))
        #expect(page.body.contains(">Hold</button>") && page.body.contains(">Flush</button>"))
        #expect(page.body.contains("signed in as ann"))
    }

    @Test func whatProducersAndServersWroteIsEscaped() throws {
        let (spool, server, conflict, failed) = try fixture()
        defer { server.stop() }
        for query in ["id=\(conflict)", "id=\(failed)", "", "view=failed"] {
            let page = try spool.cgi(query: query)
            #expect(page.status == 200)
            #expect(!page.body.contains("<script"), "\(query): \(page.body)")
            #expect(!page.body.contains("<b>bad"), "\(query)")
        }
        let page = try spool.cgi(query: "id=\(conflict)")
        #expect(page.body.contains("&lt;script&gt;alert(&#39;mine&#39;)&lt;/script&gt;"))
        #expect(page.body.contains("&lt;script&gt;alert(&#39;theirs&#39;)&lt;/script&gt;"))
        #expect(page.body.contains("Your version") && page.body.contains("Server version"))
        #expect(page.body.contains("(ETag &quot;v2&quot;)"))
        #expect(page.body.contains("<span class=\"del\">-  &quot;note&quot;"))
        #expect(page.body.contains(">Keep mine</button>") && page.body.contains(">Keep theirs</button>"))
    }

    @Test func aGetThatNamesAnActionChangesNothing() throws {
        let (spool, server, conflict, _) = try fixture()
        defer { server.stop() }
        let token = try #require(formToken(try spool.cgi(query: "id=\(conflict)").body, action: "keep-theirs"))
        let answer = try spool.cgi(query: "action=keep-theirs&id=\(conflict)&token=\(token)")
        #expect(answer.status == 405)
        #expect(answer.headers.contains("Allow: POST"))
        #expect(spool.operations("conflict") == [conflict])
        let other = try spool.cgi("DELETE", query: "id=\(conflict)")
        #expect(other.status == 405)
    }

    @Test func aPostWithoutTheUsersTokenIsRefused() throws {
        let (spool, server, conflict, _) = try fixture()
        defer { server.stop() }
        let token = try #require(formToken(try spool.cgi(query: "id=\(conflict)").body, action: "keep-theirs"))
        let other = try #require(formToken(try spool.cgi(query: "id=\(conflict)").body, action: "discard"))
        let issued = Int64(token.prefix { $0 != "." })!
        for (form, user) in [
            ("action=keep-theirs&id=\(conflict)", "ann"),  // no token
            ("action=keep-theirs&id=\(conflict)&token=\(String(repeating: "0", count: 64))", "ann"),
            ("action=keep-theirs&id=\(conflict)&token=\(token)", "bob"),  // ann's token, bob's request
            ("action=keep-theirs&id=\(conflict)&token=\(token)", nil),
            ("action=keep-theirs&id=\(conflict)&token=\(other)", "ann"),  // the discard button's token
            ("action=keep-theirs&id=\(conflict)&token=\(issued - CSRFToken.lifetimeSeconds - 1)"
                + String(token.drop { $0 != "." }), "ann"),  // its time changed: the HMAC no longer holds
        ] {
            let answer = try spool.cgi("POST", form: form, user: user)
            #expect(answer.status == 403, "\(form) as \(user ?? "nobody")")
        }
        // Without a secret the page is read-only.
        let readOnly = try spool.cgi(query: "id=\(conflict)", secret: false)
        #expect(readOnly.status == 200 && formToken(readOnly.body) == nil && readOnly.body.contains("Actions are off"))
        #expect(try spool.cgi("POST", form: "action=keep-theirs&id=\(conflict)&token=\(token)", secret: false).status == 403)
        #expect(spool.operations("conflict") == [conflict])
    }

    @Test func keepMineFromThePageRequeuesWithTheServersETag() throws {
        let (spool, server, conflict, _) = try fixture()
        defer { server.stop() }
        let token = try #require(formToken(try spool.cgi(query: "id=\(conflict)").body, action: "keep-mine"))
        let answer = try spool.cgi("POST", form: "token=\(token)&action=keep-mine&id=\(conflict)")
        #expect(answer.status == 200, "\(answer.body)")
        #expect(answer.body.contains("back in new/ with If-Match &quot;v2&quot;"))
        #expect(answer.log.contains("spool-ctl cgi: ann: spool-ctl resolve --keep-mine -- \(conflict): \(conflict)"))
        #expect(spool.operations("conflict").isEmpty)
        let waiting = spool.names("new").filter { $0.hasPrefix(conflict) }
        #expect(waiting.count == 1)
        #expect(spool.read("new", waiting[0]).contains(#""if_match":"\"v2\"""#))
    }

    @Test func discardAndRetryAreTheSubcommandsOfTheSameName() throws {
        let (spool, server, conflict, failed) = try fixture()
        defer { server.stop() }
        let overview = try spool.cgi().body
        let token = try #require(formToken(overview, action: "discard"))
        let retry = try #require(formToken(overview, action: "retry"))
        let discarded = try spool.cgi("POST", form: "token=\(token)&action=discard&id=\(conflict)")
        #expect(discarded.status == 200 && discarded.body.contains("\(conflict): discarded"))
        let retried = try spool.cgi("POST", form: "token=\(retry)&action=retry&id=\(failed)")
        #expect(retried.status == 200 && retried.body.contains("\(failed): back in new/"))
        #expect(spool.names("conflict").isEmpty && spool.names("failed").isEmpty)
        let missing = try spool.cgi("POST", form: "token=\(retry)&action=retry&id=\(failed)")
        #expect(missing.status == 409, "not filed any more: \(missing.body)")
        let path = try spool.cgi("POST", form: "token=\(token)&action=discard&id=..%2Fnew%2Fx")
        #expect(path.status == 400, "ids only, never paths")
        // An id is never read as an option: this names no operation, it does not discard every failed one.
        try spool.enqueue(["PUT", server.baseURL + "/bad", "--body", "again"])
        try spool.send()
        let failedNow = spool.operations("failed")
        #expect(!failedNow.isEmpty)
        let option = try spool.cgi("POST", form: "token=\(token)&action=discard&id=--all-failed")
        #expect(option.status == 404, "\(option.body)")
        #expect(spool.operations("failed") == failedNow)
    }

    @Test func filedListsArePaged() throws {
        let spool = TemporarySpool()
        let server = try TestServer { _ in .respond(400, [:], "no") }
        defer { server.stop() }
        for index in 0..<60 { try spool.enqueue(["PUT", server.baseURL + "/item/\(index)", "--body", "b"]) }
        try spool.send(["--concurrency", "8"])
        #expect(spool.operations("failed").count == 60)
        let first = try spool.cgi(query: "view=failed")
        #expect(first.body.components(separatedBy: "<tr><td><a href=").count - 1 == TriagePage.pageSize)
        #expect(first.body.contains("Page 1 of 2.") && first.body.contains("?page=1&amp;view=failed\">Next page"))
        let second = try spool.cgi(query: "view=failed&page=1")
        #expect(second.body.components(separatedBy: "<tr><td><a href=").count - 1 == 10)
        #expect(second.body.contains("Page 2 of 2.") && second.body.contains("Previous page"))
    }

    @Test func theSecretMustLiveOutsideTheSpool() throws {
        let spool = TemporarySpool()
        let result = try Command.run(
            "spool-ctl", ["cgi"],
            environment: ["REQUEST_METHOD": "GET", "SPOOL_DIR": spool.path, "SPOOL_CGI_SECRET": spool.path + "/secret"])
        #expect(result.stdout.hasPrefix("Status: 500"))
        #expect(result.stdout.contains("must live outside the spool"))
        #expect(!FileManager.default.fileExists(atPath: spool.path + "/secret"))
    }

    @Test func formsAndLinksAreDecodedAndEncoded() {
        #expect(CGIRequest.decodeForm("a=1&b=x+y%2Fz&a=2&c") == ["a": "1", "b": "x y/z", "c": ""])
        #expect(CGIRequest.percentEncoded("a b/\"<") == "a%20b%2F%22%3C")
        #expect(HTML.escape(#"<a href="x">'&'</a>"#) == "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;")
    }

    /// A page that may not read the spool (a server started as root runs CGI programs as nobody) says which
    /// user it runs as and what to do, not only "Permission denied".
    @Test(.enabled(if: Nobody.unavailable == nil, "\(Nobody.unavailable ?? "")"))
    func aPageThatMayNotReadTheSpoolSaysWhoItRunsAs() throws {
        let spool = TemporarySpool()
        #expect(chmod(spool.directory, 0o755) == 0 && chmod(spool.path, 0o700) == 0)
        let page = try Nobody.run("spool-ctl", ["cgi"], environment: ["REQUEST_METHOD": "GET", "SPOOL_DIR": spool.path])
        #expect(page.stdout.hasPrefix("Status: 500"), "\(page.stdout.prefix(200))")
        #expect(page.stdout.contains("Permission denied. The page runs as nobody (uid 65534), which may not read the "
            + "spool: run the web server (or its CGI programs) as the spool&#39;s owner"), "\(page.stdout)")
    }
}
