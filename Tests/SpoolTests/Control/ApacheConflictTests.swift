import Foundation
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

/// A conflict against a WebDAV server nobody on this team wrote: Apache mod_dav answers a stale If-Match with
/// a bare 412, no ETag. The version spool-send fetches is what lets a person resolve it.
@Suite(.enabled(if: Apache.binary != nil, "needs Debian's apache2 (mod_dav); .ci/run installs it"))
struct ApacheConflictTests {
    /// Runs curl against the test server, failing the test when it cannot.
    func curl(_ arguments: [String]) throws -> CommandResult {
        let result = try Command.run("/usr/bin/curl", ["-sS"] + arguments)
        #expect(result.status == 0, "curl \(arguments): \(result.stderr)")
        return result
    }

    /// The ETag Apache gives `file` (served as `url`) as it would a second after the change: Apache gives a
    /// weak one (`W/`) while the file's modification is under a second old, which If-Match never matches
    /// (RFC 9110 section 13.1.1), so the file's time is set ten seconds back first, instead of waiting.
    func settledETag(_ url: String, file: String) throws -> String {
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-10)], ofItemAtPath: file)
        let head = try curl(["-I", url]).stdout
        let line = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("etag:") }
        let tag = String(try #require(line).dropFirst(5)).trimmingCharacters(in: .whitespaces)
        #expect(!tag.hasPrefix("W/"), "a strong ETag: \(tag)")
        return tag
    }

    @Test func aBare412IsResolvedWithTheFetchedVersion() throws {
        let apache = try Apache()
        let url = apache.baseURL + "/dav/doc.json", file = apache.davDirectory + "/doc.json"
        let put = ["-X", "PUT", "-H", "Content-Type: application/json", "-o", "/dev/null", "-w", "%{http_code}"]
        #expect(try curl(put + ["--data-binary", #"{"title":"first"}"#, url]).stdout == "201")
        let first = try settledETag(url, file: file)
        // Someone else's change lands first; Apache's file has a new ETag.
        #expect(try curl(put + ["--data-binary", #"{"title":"theirs","by":"someone else"}"#, url]).stdout == "204")
        let current = try settledETag(url, file: file)
        #expect(first != current)

        let spool = TemporarySpool()
        let id = try spool.enqueue(["PUT", url, "--if-match", first, "--json", #"{"title":"mine"}"#])
        try spool.send()
        #expect(spool.operations("conflict") == [id])
        let reason = try spool.open().reason(of: id, in: .conflict, withBody: true)
        #expect(reason["status"] == "412")
        #expect(reason["etag"] == nil, "Apache's 412 carries no ETag: \(reason.fields)")
        #expect(reason["theirs-etag"] == current)
        #expect(reason.body.map { String(decoding: $0, as: UTF8.self) } == #"{"title":"theirs","by":"someone else"}"#)

        let resolved = try Command.run("spool-ctl", ["--spool", spool.path, "resolve", id, "--keep-mine"])
        #expect(resolved.status == 0, "\(resolved.stderr)")
        try spool.send()
        #expect(spool.names("new").isEmpty && spool.names("conflict").isEmpty)
        // Apache's own file holds my body, and its log what it answered.
        #expect(try String(contentsOfFile: apache.davDirectory + "/doc.json", encoding: .utf8) == #"{"title":"mine"}"#)
        #expect(apache.accessLog.suffix(3) == [
            "PUT /dav/doc.json 412", "GET /dav/doc.json 200", "PUT /dav/doc.json 204",
        ], "\(apache.accessLog)")
    }
}
