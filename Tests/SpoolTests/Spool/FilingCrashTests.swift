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

/// Filing an operation in `failed/` or `conflict/` is several steps; a `kill -9` at each must leave the
/// operation in one place and, once filed, always with its reason.
@Suite struct FilingCrashTests {
    static let points = ["file.reason-written", "file.reason-placed", "file.moved"]

    @Test(arguments: points, [400, 409])
    func crashAtEachFilingStepLeavesOperationAndReasonTogether(point: String, status: Int) throws {
        let server = try TestServer { _ in .respond(status, [:], "") }
        defer { server.stop() }
        let temporary = TemporarySpool()
        let folder = status == 409 ? "conflict" : "failed"
        let id = try temporary.enqueue(["PUT", server.baseURL + "/item"])
        let crashed = try Command.run(
            "spool-send", ["--spool", temporary.path, "--once"], environment: ["SPOOL_CRASH_AT": point])
        #expect(crashed.status == SIGKILL, "killed at \(point): \(crashed.stderr)")
        let filedBefore = temporary.names(folder)
        #expect(
            !filedBefore.contains(id) || filedBefore.contains(id + ".why"),
            "at \(point): never an operation without its reason")
        #expect(
            temporary.operations("cur").count + temporary.operations("new").count + temporary.operations(folder).count
                == 1,
            "at \(point): the operation is in exactly one place")

        let after = try temporary.send()
        #expect(temporary.names(folder) == [id, id + ".why"], "at \(point): \(after.stderr)")
        #expect(temporary.names("cur").isEmpty && temporary.names("new").isEmpty)
        let reason = temporary.read(folder, id + ".why")
        #expect(reason.contains("status: \(status)") && reason.contains("id: \(id)"), "\(reason)")
        // Once the reason was in place the decision stood: finished without asking the server again.
        let expected = point == "file.reason-written" ? 2 : 1
        // The writes only: a conflict also makes one GET of the server's version.
        #expect(server.requests.filter { $0.method != "GET" }.count == expected, "at \(point)")
    }

    /// A `kill -9` inside `spool-ctl retry`, between putting the operation back and removing its reason:
    /// the next run removes the stale reason (found from the marker the retry left, not by listing failed/),
    /// sends the write again, and files it under its own id with a fresh reason.
    @Test func staleReasonLeftByACrashedRetryIsRemoved() throws {
        let server = try TestServer { _ in .respond(400, [:], "no") }
        defer { server.stop() }
        let temporary = TemporarySpool()
        let id = try temporary.enqueue(["PUT", server.baseURL + "/item"])
        try temporary.send()
        #expect(temporary.names("failed") == [id, id + ".why"])
        let crashed = try Command.run(
            "spool-ctl", ["--spool", temporary.path, "retry", id], environment: ["SPOOL_CRASH_AT": "retry.moved"])
        #expect(crashed.status == SIGKILL, "\(crashed.stderr)")
        #expect(temporary.names("failed") == [id + ".why"] && temporary.operations("new").count == 1)
        let marker = ".filing.failed.\(id)"
        #expect(FileManager.default.fileExists(atPath: temporary.path + "/" + marker))
        // A reason without its marker (written by an older version, or by hand) is nobody's to judge.
        temporary.drop("failed", "legacy.why", "id: legacy\nreason: written by an older version\n")

        let after = try temporary.send()
        #expect(temporary.names("failed") == [id, id + ".why", "legacy.why"], "\(after.stderr)")
        #expect(server.requests.count == 2 && temporary.names("new").isEmpty)
        #expect(!FileManager.default.fileExists(atPath: temporary.path + "/" + marker), "the marker is gone")
    }
}
