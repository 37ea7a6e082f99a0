import Foundation
import Glibc
import SpoolTestSupport
import Testing

/// Root's merge into its own queued create, in a spool another user owns and sends from: the merged file is
/// written as root's enqueue was (readable by the drop group), so that the sender sends it, merged.
@Suite struct FoldOwnershipTests {
    @Test(.enabled(if: Nobody.unavailable == nil, "needs root and setpriv to run spool-send as nobody"))
    func rootsMergeInAnotherUsersSpoolIsSent() throws {
        let server = try TestServer { _ in .respond(201, [:], "") }
        defer { server.stop() }
        let temporary = TemporarySpool()
        Nobody.take(temporary)
        // The group's set-group-ID bit on tmp/ puts what root writes there in the sender's group (spool(5)).
        #expect(chmod(temporary.path + "/tmp", 0o2770) == 0)
        func enqueue(_ arguments: [String]) throws {
            let result = try Command.run("spool-enqueue", ["--spool", temporary.path] + arguments)
            try #require(result.status == 0, "\(arguments): \(result.stderr)")
        }
        try enqueue(["POST", server.baseURL + "/items", "--creates", "--key", "item-1", "--json", #"{"n":1}"#])
        try enqueue(["PATCH", server.baseURL + "/items/1", "--merge", "--key", "item-1", "--json", #"{"n":2}"#])
        let waiting = temporary.operations("new")
        try #require(waiting.count == 1, "the edit merged into the create: \(waiting)")
        var status = stat()
        #expect(lstat(temporary.path + "/new/" + waiting[0], &status) == 0 && status.st_mode & 0o777 == 0o640,
                "the merged file's mode is root's enqueue's: \(String(status.st_mode & 0o777, radix: 8))")

        let sent = try Nobody.run("spool-send", ["--spool", temporary.path, "--once"])
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(server.requests.map(\.text) == [#"{"n":2}"#], "the merged create, once: \(sent.stderr)")
        #expect(temporary.operations("failed").isEmpty && temporary.operations("new").isEmpty)
    }
}
