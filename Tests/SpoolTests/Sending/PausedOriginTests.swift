import Foundation
import SpoolTestSupport
import Testing
@testable import Spool
@testable import SpoolSystem
@testable import SpoolQueue

/// A paused origin costs nothing: once an origin asked for a pause, a run over its backlog reads no
/// document (names carry the origin's hash) and does not start the sender, as strace shows.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/strace"), "needs strace; .ci/run installs it"))
struct PausedOriginTests {
    @Test func aRunOverAPausedOriginsBacklogOpensNoDocument() throws {
        let spool = TemporarySpool()
        let server = try TestServer { _ in .respond(429, ["Retry-After": "3600"], "slow down") }
        defer { server.stop() }
        for index in 0..<120 { try spool.enqueue(["PUT", server.baseURL + "/item/\(index)", "--body", "b"]) }
        try spool.send()
        // The first answers (at most the origin's first window of 4, sent at once) paused the origin.
        let first = server.requests.count
        #expect((1...4).contains(first))
        let trace = spool.directory + "/trace"
        let traced = try Command.run(
            "/usr/bin/strace",
            ["-f", "-qq", "-e", "trace=openat,execve", "-o", trace, Command.path("spool-send"), "--spool", spool.path,
             "--once", "-v"], environment: Sanitizer.withoutLeakCheck)
        #expect(traced.status == 0, "\(traced.stderr)")
        let calls = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
        let documents = calls.filter { $0.contains("openat(") && $0.contains(":o=") }
        #expect(documents.isEmpty, "documents opened: \(documents.prefix(3))")
        #expect(!calls.contains { $0.contains("execve(") && $0.contains("spool-send-http") }, "the sender was not started")
        #expect(traced.stderr.contains("paused until") && traced.stderr.contains("120 operation(s) held back"),
                "\(traced.stderr)")
        #expect(server.requests.count == first, "nothing more was sent")
        #expect(spool.operations("new").count == 120)
    }
}
