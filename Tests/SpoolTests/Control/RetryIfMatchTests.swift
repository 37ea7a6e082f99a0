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

/// `retry --if-match` names one version of one resource: it is refused with a bulk selection or several
/// ids, so that one ETag never lifts the conflict protection of writes it does not belong to.
@Suite struct RetryIfMatchTests {
    @Test func oneETagIsNeverPutOnManyConflicts() throws {
        let spool = TemporarySpool()
        let resource = VersionedResource()
        let server = try TestServer { request in
            request.path == "/locked" ? .respond(409, [:], "locked") : resource.handle(request)
        }
        defer { server.stop() }
        let stale = try spool.enqueue(["PUT", server.baseURL + "/doc", "--if-match", "\"v0\"", "--body", "mine"])
        let locked = try spool.enqueue(["PUT", server.baseURL + "/locked", "--body", "no version"])
        try spool.send()
        #expect(Set(spool.operations("conflict")) == [stale, locked])
        let before = spool.names("conflict").map { ($0, spool.read("conflict", $0)) }

        for arguments in [["--all-conflict"], ["--all-failed", "--all-conflict"], [stale, locked]] {
            let result = try Command.run(
                "spool-ctl", ["--spool", spool.path, "retry", "--if-match", "\"v9\""] + arguments)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(
                result.stderr.contains(
                    "spool-ctl: error: the value '\"v9\"' is invalid for '--if-match': expected one operation ID"),
                "\(result.stderr)")
            #expect(result.stderr.contains("See 'spool-ctl --help'"))
        }
        #expect(
            try spool.names("conflict").map { ($0, spool.read("conflict", $0)) }.elementsEqual(before, by: ==),
            "nothing moved or changed")
        #expect(spool.names("new").isEmpty)

        // One id at a time is the way, and the 409 without a version keeps having none.
        #expect(
            try Command.run("spool-ctl", ["--spool", spool.path, "retry", "--if-match", "\"v1\"", stale]).status == 0)
        #expect(try Command.run("spool-ctl", ["--spool", spool.path, "retry", locked]).status == 0)
        let documents = spool.names("new").map { spool.read("new", $0) }
        #expect(documents.filter { $0.contains("\"if_match\"") }.count == 1, "\(documents)")
        #expect(documents.contains { $0.contains(#"\"v1\""#) }, "\(documents)")
    }
}
