import Foundation
import Glibc
import SpoolTestSupport
import Testing
@testable import Spool
@testable import SpoolSystem
@testable import SpoolNames
@testable import SpoolDocument
@testable import SpoolQueue

/// A producer of a shared spool can make an entry in `new/` under the name another's write is about to take
/// (a queue name is predictable from the write). The move sets that entry aside, to a hidden name, and goes
/// on: neither the write nor the run is held back, and the entry's maker is named in the log.
@Suite(.enabled(if: geteuid() == 0, "needs root, to give an entry to another user"))
struct SetAsideTests {
    /// Makes the directory `new/NAME` in `temporary`, given to nobody, as a producer would.
    static func squat(_ temporary: TemporarySpool, _ name: String, owner: uid_t = 65534) throws {
        let path = temporary.path + "/new/" + name
        try #require(mkdir(path, 0o755) == 0 && chown(path, owner, owner) == 0)
        // Something inside, so that it cannot simply be removed.
        try "mine".write(toFile: path + "/inside", atomically: false, encoding: .utf8)
    }

    @Test func aProducersEntryInTheWayOfAnAdmissionIsSetAside() throws {
        let temporary = TemporarySpool()
        let spool = try temporary.open()
        temporary.drop("new", "x1", #"{"method":"PUT","url":"http://127.0.0.1:9/a"}"#)
        let stated = "x1:o=1,k=0000000000000001"
        try Self.squat(temporary, stated)
        let moved = spool.withLock { $0.admit(FileName("x1"), as: FileName(stated)) }
        #expect(moved.wasMoved, "\(moved)")
        var status = stat()
        #expect(lstat(temporary.path + "/new/" + stated, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG)
        let aside = try FileManager.default.contentsOfDirectory(atPath: temporary.path + "/new")
            .filter { $0.hasPrefix(".in-the-way.") }
        try #require(aside.count == 1, "one entry set aside")
        #expect(FileManager.default.fileExists(atPath: temporary.path + "/new/" + aside[0] + "/inside"))
        let notes = spool.users.takeSetAsideNotes()
        #expect(notes.count == 1 && notes[0].contains("uid 65534") && notes[0].contains(aside[0]), "\(notes)")
    }

    @Test func anEntryOfTheSpoolsOwnerIsNotSetAside() throws {
        let temporary = TemporarySpool()
        let spool = try temporary.open()
        temporary.drop("new", "x1", #"{"method":"PUT","url":"http://127.0.0.1:9/a"}"#)
        let stated = "x1:o=1,k=0000000000000001"
        try Self.squat(temporary, stated, owner: 0)
        let moved = spool.withLock { $0.admit(FileName("x1"), as: FileName(stated)) }
        #expect(!moved.wasMoved && moved.fault?.error == .fileExists, "\(moved)")
        #expect(temporary.names("new").sorted() == [stated, "x1"].sorted(), "nothing moved")
    }

    /// End to end: the name a dropped write is admitted under, taken first; spool-send sends the write and
    /// says who stood in its way.
    @Test func aRunSendsTheWriteWhoseNameWasTaken() throws {
        let server = try TestServer { _ in .respond(204, [:], "") }
        defer { server.stop() }
        let temporary = TemporarySpool()
        let document = #"{"method":"PUT","url":"\#(server.baseURL)/a","body":"a"}"#
        // Written a minute ago, in whole seconds: the order stamp admission gives it is known.
        let written = (Date().timeIntervalSince1970 - 60).rounded(.down)
        temporary.drop("new", "x1", document, modified: Date(timeIntervalSince1970: written))
        let state = RetryState(
            for: try Operation(bytes: Array(document.utf8)), orderMicroseconds: Int64(written) * 1_000_000,
            scope: nil)
        try Self.squat(temporary, QueueName(id: "x1", state: state).fileName.escaped)
        let run = try Command.run("spool-send", ["--spool", temporary.path, "--once"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(server.requests.map(\.path) == ["/a"], "\(run.stderr)")
        #expect(run.stderr.contains("(uid 65534), took the name") && run.stderr.contains("set aside as"),
                "\(run.stderr)")
        #expect(temporary.operations("new").isEmpty && temporary.operations("failed").isEmpty)
    }
}
