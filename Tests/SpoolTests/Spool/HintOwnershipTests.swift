import Foundation
import Glibc
import SpoolTestSupport
import Testing

/// The spool's own small files in its root stay its owner's when root makes them (a `spool-ctl` under sudo):
/// `.unfiled` must go on counting the owner's retries, which a dependant's wait rests on.
@Suite struct HintOwnershipTests {
    @Test(.enabled(if: Nobody.unavailable == nil, "needs root and setpriv to run spool-ctl as nobody"))
    func theUnfiledMarkerRootMakesCountsTheOwnersRetries() throws {
        let server = try TestServer { _ in .respond(400, [:], "") }
        defer { server.stop() }
        let temporary = TemporarySpool()
        let ids = try (1...2).map { index in
            let enqueued = try Command.run(
                "spool-enqueue", ["--spool", temporary.path, "PUT", server.baseURL + "/\(index)"])
            try #require(enqueued.status == 0, "\(enqueued.stderr)")
            return enqueued.stdout.trimmingCharacters(in: .newlines)
        }
        _ = try Command.run("spool-send", ["--spool", temporary.path, "--once"])
        try #require(temporary.operations("failed").count == 2, "both rejected: \(temporary.names("failed"))")
        Nobody.take(temporary)

        let byRoot = try Command.run("spool-ctl", ["--spool", temporary.path, "retry", ids[0]])
        try #require(byRoot.status == 0, "\(byRoot.stderr)")
        var status = stat()
        try #require(lstat(temporary.path + "/.unfiled", &status) == 0, "root's retry makes the marker")
        #expect(status.st_uid == 65534, "the marker root made is the spool owner's: uid \(status.st_uid)")

        let byOwner = try Nobody.run("spool-ctl", ["--spool", temporary.path, "retry", ids[1]])
        try #require(byOwner.status == 0, "\(byOwner.stderr)")
        #expect(lstat(temporary.path + "/.unfiled", &status) == 0 && status.st_size == 2,
                "one byte for each retry, the owner's included: \(status.st_size)")
        #expect(temporary.operations("new").count == 2 && temporary.operations("failed").isEmpty)
    }

    /// The spool's owner may make `.unfiled` a hard link to a file of root's elsewhere: root's retry must not
    /// give that file away.
    @Test(.enabled(if: Nobody.unavailable == nil, "needs root, to own a file another user links to"))
    func aMarkerThatIsAHardLinkIsNotGivenAway() throws {
        let server = try TestServer { _ in .respond(400, [:], "") }
        defer { server.stop() }
        let temporary = TemporarySpool()
        let id = try temporary.enqueue(["PUT", server.baseURL + "/1"])
        _ = try Command.run("spool-send", ["--spool", temporary.path, "--once"])
        try #require(temporary.operations("failed") == [id])
        Nobody.take(temporary)
        let victim = temporary.directory + "/roots-own"
        try "secret".write(toFile: victim, atomically: false, encoding: .utf8)
        try #require(link(victim, temporary.path + "/.unfiled") == 0, "the planted name")
        let byRoot = try Command.run("spool-ctl", ["--spool", temporary.path, "retry", id])
        #expect(byRoot.status == 0, "\(byRoot.stderr)")
        var status = stat()
        #expect(lstat(victim, &status) == 0 && status.st_uid == 0, "root's file stays root's: uid \(status.st_uid)")
    }
}
