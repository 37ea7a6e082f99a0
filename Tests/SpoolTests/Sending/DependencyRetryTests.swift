import Foundation
import Glibc
import SpoolTestSupport
@testable import SpoolSystem
import Testing

/// A write that depends on a filed one waits for it; when `spool-ctl retry` puts the filed one back while a
/// worker's round is under way (the round listed the queue before), the dependant still waits and is sent after
/// it. Real processes: the server holds the request before the dependant's while the retry is made.
@Suite struct DependencyRetryTests {
    @Test func aDependencyRetriedDuringARoundIsSentFirst() throws {
        let spool = TemporarySpool()
        let held = try HeldServer(holding: "/held", status: 204), server = held.server
        defer { server.stop() }
        spool.drop("failed", "dependency", #"{"method":"PUT","url":"\#(server.baseURL)/dependency"}"#)
        // One key, in order: the first asks after an id long done (the round lists the queue for it), the
        // second is held at the server, the third depends on the filed write.
        try spool.enqueue(["PUT", server.baseURL + "/first", "--key", "k", "--depends-on", "long-gone"])
        try spool.enqueue(["PUT", server.baseURL + "/held", "--key", "k"])
        try spool.enqueue(["PUT", server.baseURL + "/dependant", "--key", "k", "--depends-on", "dependency"])
        let (sender, _, errors) = try Command.start("spool-send", ["--spool", spool.path, "--once", "-v"])
        #expect(eventually(within: 20) { held.isHolding }, "the second write is at the server")
        let retry = try Command.run("spool-ctl", ["--spool", spool.path, "retry", "dependency"])
        #expect(retry.status == 0, "\(retry.stderr)")
        held.release()
        sender.waitUntilExit()
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(sender.terminationStatus == 0, "\(said)")
        for _ in 0..<3 where !spool.names("new").isEmpty { try spool.send(["--flush"]) }
        let paths = server.requests.map(\.path)
        #expect(paths.count == 4 && Set(paths) == ["/first", "/held", "/dependency", "/dependant"], "\(paths)")
        let dependency = paths.firstIndex(of: "/dependency"), dependant = paths.firstIndex(of: "/dependant")
        #expect(dependency != nil && dependant != nil && dependency! < dependant!, "sent in order: \(paths)\n\(said)")
    }
}
