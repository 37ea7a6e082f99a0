import Foundation
import Glibc
import SpoolTestSupport
import Testing
@testable import Spool
@testable import SpoolQueue
@testable import SpoolSystem

/// `--max-queue` for the producers of a shared spool, who may drop into `new/` but not list it: the count
/// the sender keeps in `.waiting`, and one byte more for each of their drops.
@Suite struct WaitingCountTests {
    /// spool(5)'s drop layout with the group nogroup (65534) as the drop group: nobody is a producer, root
    /// the sender.
    func sharedSpool() throws -> TemporarySpool {
        let spool = TemporarySpool()
        _ = try spool.open()
        chmod(spool.directory, 0o755)
        #expect(Mounts.run(["chgrp", "65534", spool.path, spool.path + "/tmp", spool.path + "/new"]) == 0)
        chmod(spool.path, 0o750)
        chmod(spool.path + "/tmp", 0o3730)
        chmod(spool.path + "/new", 0o3730)
        return spool
    }

    func enqueue(_ spool: TemporarySpool, _ url: String) throws -> CommandResult {
        try Nobody.run("spool-enqueue", ["--spool", spool.path, "--max-queue", "3", "PUT", url])
    }

    @Test(.enabled(if: Nobody.unavailable == nil, "\(Nobody.unavailable ?? "")"))
    func theQueueLimitHoldsForAProducerWhoCannotListNew() throws {
        let spool = try sharedSpool()
        let server = try TestServer { _ in .respond(204, [:], "") }
        defer { server.stop() }
        try spool.send()
        #expect(spool.read("", ".waiting") == "0\n")
        for index in 0..<3 {
            let result = try enqueue(spool, server.baseURL + "/\(index)")
            #expect(result.status == 0, "\(result.stderr)")
        }
        let refused = try enqueue(spool, server.baseURL + "/3")
        #expect(refused.status == 75, "\(refused.status) \(refused.stderr)")
        #expect(refused.stderr.contains("3 operations wait in new/, the limit is 3 (--max-queue)"), "\(refused.stderr)")
        #expect(spool.operations("new").count == 3)
        // The sender takes them in, sends them and says so: the producer may drop again.
        try spool.send()
        #expect(server.requests.count == 3 && spool.read("", ".waiting") == "0\n")
        let again = try enqueue(spool, server.baseURL + "/again")
        #expect(again.status == 0, "\(again.stderr)")
        let status = try FileDescriptor.currentDirectory.status(of: FileName(spool.path + "/.waiting"))
        #expect(status.permissions == 0o660 && status.group == 65534, "the drop group appends to it")
    }
}
