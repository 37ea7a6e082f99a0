import Foundation
import Glibc
import Testing
@testable import Spool
@testable import SpoolConfiguration
@testable import SpoolQueue
@testable import SpoolSystem

/// spool-enqueue's limits: set-group-ID, the caller may only tighten the administrator's (the package test
/// runs it so, as a producer); the free-space check counts the payload, for every caller.
@Suite struct EnqueueLimitsTests {
    func command(_ arguments: [String]) throws -> EnqueueCommand {
        try EnqueueCommand(parsing: arguments + ["PUT", "http://127.0.0.1:9/x"], nowSeconds: 0)
    }

    @Test func theCallerTightensAndNeverLoosens() throws {
        var configuration = try SpoolConfiguration.parse(
            "[default]\nmin-free = 64M\nmax-queue = 500\nmax-payload = 1M\n", path: "spool.conf")
        #expect(configuration.minFreeBytes == 64 << 20 && configuration.maxQueue == 500)
        let loose = try command(["--min-free", "0", "--max-queue", "100000000", "--max-payload", "1G",
                                 "--max-size", "1000000000"]).tightened(by: configuration)
        #expect(loose.limits.minFreeBytes == 64 << 20 && loose.limits.maxCount == 500)
        #expect(loose.maxPayload == 1 << 20 && loose.maxSize == Spool.defaultMaxDocumentSize)
        let tight = try command(["--min-free", "1073741824", "--max-queue", "10", "--max-payload", "1k", "--max-size", "100"])
            .tightened(by: configuration)
        #expect(tight.limits.minFreeBytes == 1 << 30 && tight.limits.maxCount == 10)
        #expect(tight.maxPayload == 1024 && tight.maxSize == 100)
        // Without spool.conf's keys, the built-in defaults are the administrator's.
        configuration = SpoolConfiguration()
        let unset = try command(["--min-free", "0"]).tightened(by: configuration)
        #expect(unset.limits.minFreeBytes == QueueLimits().minFreeBytes)
        #expect(unset.maxPayload == Spool.defaultMaxPayloadSize)
        for bad in ["[https://a.example]\nmin-free = 1M\n", "[default]\nmax-queue = -1\n", "[default]\nmin-free = x\n"] {
            #expect(throws: ConfigurationError.self, "accepted \(bad)") {
                try SpoolConfiguration.parse(bad, path: "spool.conf")
            }
        }
    }

    /// A payload that would leave less than `--min-free` is refused (75) and leaves nothing behind; the
    /// document alone fits. The margins are wide: other tests write to the same disk meanwhile.
    @Test func theFreeSpaceCheckCountsThePayload() throws {
        let spool = TemporarySpool()
        let payload = spool.directory + "/large"
        #expect(FileManager.default.createFile(atPath: payload, contents: nil))
        #expect(truncate(payload, 256 << 20) == 0)
        var status = statvfs()
        #expect(statvfs(spool.path, &status) == 0)
        let free = Int(status.f_bavail) * Int(status.f_frsize)
        try #require(free > 1 << 30, "the test needs 1 GiB free")
        let result = try Command.run(
            "spool-enqueue", ["--spool", spool.path, "--min-free", String(free - (64 << 20)), "--payload", payload,
                              "PUT", "http://127.0.0.1:9/large"])
        #expect(result.status == 75, "\(result.stderr)")
        #expect(result.stderr.contains("to keep (--min-free)"), "\(result.stderr)")
        #expect(result.stderr.contains("the spool's file system is nearly full")
            && !result.stderr.contains("queue is full"), "a disk nearly full is not a full queue: \(result.stderr)")
        #expect(spool.names("new").isEmpty && spool.names("tmp").isEmpty)
        // Without a payload, the document alone is refused the same way once the margin is gone.
        let document = try Command.run(
            "spool-enqueue", ["--spool", spool.path, "--min-free", String(free * 2), "PUT", "http://127.0.0.1:9/a"])
        #expect(document.status == 75 && document.stderr.contains("the spool's file system is nearly full")
            && document.stderr.contains("(--min-free)"), "\(document.stderr)")
    }
}
