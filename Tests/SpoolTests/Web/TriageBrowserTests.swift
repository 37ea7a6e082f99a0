import Foundation
import SpoolTestSupport
import Testing
@testable import Spool
@testable import SpoolSystem
@testable import SpoolQueue
@testable import SpoolWeb

/// Debian's Chromium, for the tests that look at the triage page as a person does.
enum Chromium {
    /// Its path, or nil with the reason printed.
    static let binary: String? = {
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium") { return "/usr/bin/chromium" }
        print("skipped: these tests need Chromium (Debian's chromium); .ci/run installs it")
        return nil
    }()
}

/// The triage page behind a real web server (Apache, mod_cgi, basic authentication) in a real browser
/// (headless Chromium, driven through its DevTools protocol): the person sees both versions, presses
/// Keep mine, and the write goes back with the server's ETag.
@Suite(.enabled(if: Apache.binary != nil && Chromium.binary != nil, "needs apache2 and chromium; .ci/run installs them"))
struct TriageBrowserTests {
    /// Where the screenshot of the conflict page is kept after the run, for a person to look at.
    static let screenshot = NSTemporaryDirectory() + "spool-triage-conflict.png"

    @Test func aPersonKeepsTheirVersionFromTheBrowser() throws {
        let resource = JSONDocumentResource()
        resource.state.withLock { $0.body = #"{"title":"theirs <script>alert(1)</script>","tags":["a","b"],"n":7}"# }
        let server = try TestServer { resource.handle($0) }
        defer { server.stop() }
        let spool = TemporarySpool()
        let id = try spool.enqueue([
            "PUT", server.baseURL + "/doc", "--if-match", "\"v6\"", "--json", #"{"title":"mine","tags":["a","b"],"n":6}"#
        ])
        try spool.send()
        #expect(spool.operations("conflict") == [id])

        // The page as an admin installs it: a wrapper in cgi-bin, the spool and the secret named by the server.
        try Apache.giveToWebServer(spool.directory)
        let apache = try Apache(
            environment: ["SPOOL_DIR": spool.path, "SPOOL_CGI_SECRET": spool.directory + "/cgi.secret"],
            users: ["ann": "s3cret"])
        let prefix = apache.directory + "/prefix"
        let installed = try Command.run(
            Repository.root + "/bin/spool-install", [prefix], environment: ["SPOOL_BINARIES": Command.products])
        #expect(installed.status == 0, "\(installed.stderr)")
        try FileManager.default.copyItem(atPath: prefix + "/lib/spool/spool.cgi", toPath: apache.cgiDirectory + "/spool.cgi")
        let page = apache.baseURL + "/cgi-bin/spool.cgi"
        let anonymous = try Command.run("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", page])
        #expect(anonymous.stdout == "401", "the web server does the authentication")

        let signedIn = "http://ann:s3cret@127.0.0.1:\(apache.port)/cgi-bin/spool.cgi?id=\(id)"
        let browser = try Command.run(
            "/usr/bin/python3",
            [Repository.root + "/Tests/Support/browser.py", Chromium.binary!, signedIn, Self.screenshot, "Keep mine"],
            timeout: 90)
        #expect(browser.status == 0, "\(browser.stderr)\n\(apache.errorLog)")
        let (before, after) = try #require(browser.stdout.split(separator: "--- after the press ---\n").pairs)
        #expect(before.hasPrefix("scripts: 0\n"), "no markup from the server runs: \(before)")
        #expect(before.contains("\"title\": \"theirs <script>alert(1)</script>\""), "shown as text: \(before)")
        #expect(before.contains("Your version") && before.contains("Server version (ETag \"v7\")"))
        #expect(after.contains("back in new/ with If-Match \"v7\""), "\(after)")
        let png = try Data(contentsOf: URL(fileURLWithPath: Self.screenshot))
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]) && png.count > 10_000, "a screenshot of the page")
        print("screenshot of the conflict page: \(Self.screenshot)")
        #expect(apache.accessLog.contains("POST /cgi-bin/spool.cgi 200"), "\(apache.accessLog)")
        #expect(apache.errorLog.contains("spool-ctl cgi: ann: spool-ctl resolve --keep-mine -- \(id)"))

        // The write goes back over the server's version.
        try spool.send()
        #expect(resource.body == #"{"title":"mine","tags":["a","b"],"n":6}"#)
        #expect(resource.writes.last?.header("If-Match") == "\"v7\"")

        // Through the same server: a POST without the token, and a GET naming an action.
        let forged = try Command.run(
            "/usr/bin/curl", ["-s", "-u", "ann:s3cret", "-o", "/dev/null", "-w", "%{http_code}", "-d",
                              "action=discard&id=\(id)", page])
        #expect(forged.stdout == "403")
        let linked = try Command.run(
            "/usr/bin/curl", ["-s", "-u", "ann:s3cret", "-o", "/dev/null", "-w", "%{http_code}",
                              page + "?action=discard&id=\(id)"])
        #expect(linked.stdout == "405")
    }
}

extension Array where Element == Substring {
    /// The two parts of a split in two, or nil.
    var pairs: (String, String)? { count == 2 ? (String(self[0]), String(self[1])) : nil }
}
