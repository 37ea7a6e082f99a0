import Foundation
import SpoolTestSupport
import Testing

/// The same command line through curl and through spool-enqueue + spool-send delivers the same request to one
/// recording server: method, path and query, the headers curl sets (less Host, Idempotency-Key, curl's
/// default User-Agent and `Accept: */*`, and `Expect`), and a byte-identical body.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/curl"), "needs curl"), .serialized)
struct CurlEquivalenceTests {
    /// One command line per option, files named FORM (CR/LF text), BLOB (binary) and DOC (JSON).
    static let commandLines: [[String]] = [
        ["-X", "PUT", "-H", "Content-Type: text/plain", "-d", "hello"],
        ["-d", "a=1", "-d", "b=2"],
        ["-d", "@FORM"],
        ["--data-binary", "@FORM"],
        ["--data-binary", "@BLOB", "-H", "Content-Type: application/octet-stream"],
        ["--data-raw", "@not-a-file"],
        ["--data-urlencode", "hello world&more=yes"],
        ["--data-urlencode", "=a b/c"],
        ["--data-urlencode", "name=a b+c"],
        ["--data-urlencode", "@FORM"],
        ["--data-urlencode", "name@FORM"],
        ["--json", #"{"a":1}"#],
        ["--json", "@DOC", "--json", #"{"more":true}"#],
        ["-T", "BLOB"],
        ["-X", "POST", "-T", "FORM"],
        ["-X", "PATCH", "-A", "agent/1.0", "-e", "https://referer.example/page", "-b", "a=1", "-b", "b=2", "-d", "x"],
        ["-X", "DELETE"],
        ["-H", "X-Empty;", "-H", "Content-Type:", "-d", "z"],
        ["-X", "PUT", "-d", "x", "-H", "User-Agent:"],
        ["-sSf", "-X", "PUT", "-d", "bundled"],
        ["-fsSd@FORM", "--silent", "--show-error"],
        ["--fail-with-body", "-d", "w"],
        ["-sH", "X-Bundled: yes", "-d", "z"],
        ["--json", #"{"a":1}"#, "-H", "Content-Type:", "-H", "Accept:"],
        ["-dattached", "-HX-Attached: yes"],
        ["--request", "PUT", "--header", "X-Long: form", "--data", "long=1"],
        ["--upload-file", "DOC", "--user-agent", "long/2", "--referer", "r", "--cookie", "c=3"],
        ["-F", "a=1", "-F", "text=@FORM", "-F", "blob=@BLOB;type=image/x-test;filename=b.bin", "-F", "doc=<DOC"],
        ["--form", "json=@DOC", "-F", "empty="],
    ]

    static func files(_ directory: String) throws -> [String: String] {
        var binary = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 * 7 + 3) })
        binary.append(contentsOf: [0, 13, 10, 255])
        try binary.write(to: URL(fileURLWithPath: directory + "/blob"))
        try "line one\r\nline two\nkey=a b&c\n".write(toFile: directory + "/form", atomically: true, encoding: .utf8)
        try #"{"title": "Groceries",\#n "done": false}"#.write(
            toFile: directory + "/doc.json", atomically: true, encoding: .utf8)
        return ["BLOB": directory + "/blob", "FORM": directory + "/form", "DOC": directory + "/doc.json"]
    }

    /// What the comparison looks at in a request.
    struct Seen: Equatable, CustomStringConvertible {
        let method: String
        let path: String
        let headers: [String: String]
        let body: Data
        var description: String { "\(method) \(path) \(headers.sorted { $0.key < $1.key }) \(body.count) bytes" }

        init(_ request: TestServer.Request, explicit: Set<String>) {
            method = request.method
            path = request.path
            var headers = request.headers
            for name in ["host", "idempotency-key", "expect", "connection"] { headers.removeValue(forKey: name) }
            // curl's own defaults, which spool does not add: compared only when the command line set them.
            if !explicit.contains("user-agent") { headers.removeValue(forKey: "user-agent") }
            if headers["accept"] == "*/*", !explicit.contains("accept") { headers.removeValue(forKey: "accept") }
            // Multipart boundaries aside: each side's own boundary reads as one token.
            var body = request.body
            if let type = headers["content-type"], let range = type.range(of: "boundary=") {
                let boundary = String(type[range.upperBound...])
                headers["content-type"] = type.replacingOccurrences(of: boundary, with: "BOUNDARY")
                body = Data(Self.replacing(Array(body), Array(boundary.utf8), with: Array("BOUNDARY".utf8)))
            }
            self.headers = headers
            self.body = body
        }

        /// `bytes` with every `pattern` replaced.
        static func replacing(_ bytes: [UInt8], _ pattern: [UInt8], with replacement: [UInt8]) -> [UInt8] {
            var out: [UInt8] = [], i = 0
            while i < bytes.count {
                if i + pattern.count <= bytes.count, Array(bytes[i..<i + pattern.count]) == pattern {
                    out += replacement
                    i += pattern.count
                } else {
                    out.append(bytes[i])
                    i += 1
                }
            }
            return out
        }
    }

    @Test(arguments: CurlEquivalenceTests.commandLines)
    func curlAndSpoolDeliverTheSameRequest(_ template: [String]) throws {
        let spool = TemporarySpool()
        let files = try Self.files(spool.directory)
        let arguments = template.map { word in
            files.reduce(word) { $0.replacingOccurrences(of: $1.key, with: $1.value) }
        }
        let server = try TestServer { _ in .respond(204, [:], "") }
        defer { server.stop() }
        let url = server.baseURL + "/items/1?q=a%20b&x=1"
        let curl = try Command.run("/usr/bin/curl", ["-s", "-o", "/dev/null"] + arguments + [url])
        #expect(curl.status == 0, "curl \(arguments): \(curl.stderr)")
        let enqueued = try Command.run("spool-enqueue", ["--spool", spool.path] + arguments + [url])
        #expect(enqueued.status == 0, "spool-enqueue \(arguments): \(enqueued.stderr)")
        try spool.send()
        let requests = server.requests
        try #require(requests.count == 2, "both arrived: \(requests.map(\.path))")
        let explicit: Set<String> = Set(
            template.contains("-A") || template.contains("--user-agent") ? ["user-agent"] : []
        )
        .union(template.contains("--json") ? ["accept"] : [])
        let (byCurl, bySpool) = (Seen(requests[0], explicit: explicit), Seen(requests[1], explicit: explicit))
        #expect(byCurl == bySpool, "\(template):\n curl  \(byCurl)\n spool \(bySpool)")
        #expect(byCurl.body == bySpool.body, "byte-identical body for \(template)")
    }

    @Test(arguments: [
        (["-o", "out"], "there is no answer to save"), (["-O"], "there is no answer to save"),
        (["-v"], "spool-send -v"), (["-L"], "never follows redirects"), (["-sSL"], "never follows redirects"),
        (["--retry", "3"], "retries with backoff"), (["-i"], "no answer to show"), (["-w", "%{http_code}"], "describe"),
        (["-k"], "never none"), (["-m", "5"], "--timeout"), (["-u", "me:secret"], "--auth NAME"),
        (["--oauth2-bearer", "t0ken"], "--auth NAME"), (["-H", "Authorization: Bearer t0ken"], "--auth NAME"),
        (["-b", "cookies.txt"], "a cookie file is a path"),
    ])
    func liveRequestOptionsAndSecretsAreRefusedByName(_ arguments: [String], _ hint: String) throws {
        let spool = TemporarySpool()
        let result = try Command.run(
            "spool-enqueue", ["--spool", spool.path, "-d", "x"] + arguments + ["http://127.0.0.1:9/a"])
        #expect(result.status == 64, "\(arguments): \(result.stderr)")
        // A bundle (-sSL) is refused by the letter that is refused.
        let named = arguments[0].count > 2 && !arguments[0].hasPrefix("--") ? "-" + String(arguments[0].last!) : arguments[0]
        #expect(result.stderr.contains(named) && result.stderr.contains(hint), "\(arguments): \(result.stderr)")
        #expect(spool.names("new").isEmpty, "nothing was queued")
    }

    @Test func aReadAndTheOldJsonOptionAreRefusedWithTheWayOut() throws {
        let spool = TemporarySpool()
        let get = try Command.run("spool-enqueue", ["--spool", spool.path, "http://127.0.0.1:9/a"])
        #expect(get.status == 65 && get.stderr.contains("GET"), "\(get.stderr)")
        let old = try Command.run("spool-enqueue", ["--spool", spool.path, "--json", "op.json"])
        #expect(old.status == 64 && old.stderr.contains("--document"), "\(old.stderr)")
        #expect(spool.names("new").isEmpty)
    }

    /// `--json` with no URL names what is missing, and why it is needed.
    @Test func aJSONBodyWithoutAURLNamesTheURL() throws {
        let spool = TemporarySpool()
        let run = try Command.run("spool-enqueue", ["--spool", spool.path, "--json", #"{"a":1}"#])
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stderr.hasPrefix("spool-enqueue: error: missing expected argument 'URL': --json is curl's, a JSON "
            + "body sent to a URL; a whole operation document is --document FILE\n"), "\(run.stderr)")
        #expect(spool.names("new").isEmpty)
    }

    /// An `Idempotency-Key` cannot be removed: every write carries one. The refusal says why and what to do.
    @Test func theIdempotencyKeyCannotBeRemoved() throws {
        let spool = TemporarySpool()
        let run = try Command.run("spool-enqueue", ["--spool", spool.path, "-X", "PUT", "-d", "x", "-H", "Idempotency-Key:",
                                                    "http://127.0.0.1:9/a"])
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stderr.contains("'-H 'Idempotency-Key:'' is not for a queued write: every write carries an "
            + "Idempotency-Key, so that a retry is never applied twice; give your own with --idempotency-key KEY"),
                "\(run.stderr)")
        let document = #"{"method":"PUT","url":"http://127.0.0.1:9/a","headers":{"Idempotency-Key":null}}"#
        let dropped = try Command.run("spool-enqueue", ["--spool", spool.path, "--document", "-"],
                                      stdin: Data(document.utf8))
        #expect(dropped.status == 65 && dropped.stderr.contains("every write carries one"), "\(dropped.stderr)")
        #expect(spool.names("new").isEmpty)
    }
}
