import Foundation
import Glibc
import SpoolTestSupport
@testable import SpoolSystem
import Testing

/// A lane reads its write before it claims it, and may wait for room at the origin in between: a `merge`
/// folded into the write meanwhile (an exchange of names) must be what is sent, not the copy read before it.
/// Real processes; the fault shim says when the lane has opened the write.
@Suite(.enabled(if: FaultShim.available, "needs the LD_PRELOAD shim (a C compiler)"))
struct FoldRaceTests {
    @Test func aMergeFoldedWhileALaneWaitsForRoomIsSent() throws {
        let spool = TemporarySpool()
        // The first request is held until the merge is made: the lane behind it waits for room meanwhile.
        let held = try HeldServer(holding: "/first", status: 201), server = held.server
        defer { server.stop() }
        try spool.enqueue(["PUT", server.baseURL + "/first", "--body", "first"])
        let create = try spool.enqueue([
            "POST", server.baseURL + "/items", "--creates", "--key", "item-1", "--json", #"{"title":"a","n":1}"#,
        ])
        // One request at a time to the origin: the create's lane waits for room while the first is held.
        let configuration = spool.directory + "/spool.conf"
        try "[\(server.baseURL)]\nmax-concurrency = 1\n".write(toFile: configuration, atomically: true, encoding: .utf8)
        let opened = spool.directory + "/opened"
        let (sender, _, errors) = try Command.start(
            "spool-send", ["--spool", spool.path, "--once", "--concurrency", "2", "--config", configuration, "-v"],
            environment: FaultShim.environment(["FAULTSHIM_OPEN_MARK": "\(create):\(opened)"]))
        #expect(eventually(within: 20) { held.isHolding && FileManager.default.fileExists(atPath: opened) },
                "the first request is at the server and the create was read")
        let edit = try Command.run(
            "spool-enqueue",
            ["--spool", spool.path, "PATCH", server.baseURL + "/items/1", "--merge", "--key", "item-1", "--json",
             #"{"n":2}"#])
        #expect(edit.stdout == create + "\n" && edit.stderr.contains("merged into \(create)"), "\(edit.stderr)")
        held.release()
        sender.waitUntilExit()
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(sender.terminationStatus == 0, "\(said)")
        let received = server.requests.map { "\($0.method) \($0.path) \(String(decoding: $0.body, as: UTF8.self))" }
        #expect(received == ["PUT /first first", #"POST /items {"title":"a","n":2}"#], "the merged document, once")
        #expect(said.contains("\(create): changed since it was read"), "\(said)")
        #expect(spool.names("new").isEmpty && spool.names("cur").isEmpty)
    }
}
