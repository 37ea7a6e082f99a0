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

/// The idle hint lets a cron run skip listing an unchanged queue, and never hides a change.
@Suite struct IdleHintTests {
    /// Sets a folder's modification time, as if its last change were `seconds` ago (or exactly `nanoseconds`).
    static func setModified(_ path: String, secondsAgo seconds: Double? = nil, nanoseconds: Int64? = nil) {
        let value = nanoseconds ?? Int64((Date().timeIntervalSince1970 - seconds!) * 1e9)
        // UTIME_OMIT ((1 << 30) - 2): leave the access time alone.
        var times = [
            timespec(tv_sec: 0, tv_nsec: (1 << 30) - 2),
            timespec(tv_sec: Int(value / 1_000_000_000), tv_nsec: Int(value % 1_000_000_000))
        ]
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
    }

    @Test func unchangedIdleQueueIsSkippedAndAnyChangeIsSeen() throws {
        let spool = TemporarySpool()
        let server = try TestServer { _ in .respond(204, [:], "") }
        defer { server.stop() }
        let later = try spool.enqueue(["PUT", server.baseURL + "/later", "--not-before", "+1h"])
        Self.setModified(spool.path + "/new", secondsAgo: 10)
        Self.setModified(spool.path + "/cur", secondsAgo: 10)
        try spool.send()
        let hint = try #require(IdleHint.read(try spool.open()))
        let due = try #require(spool.waiting().first?.state?.dueSeconds)
        #expect(hint.dueSeconds == due)
        #expect(server.requests.isEmpty)

        // A new operation changes new/: the hint no longer holds and the operation goes at once.
        try spool.enqueue(["PUT", server.baseURL + "/now"])
        try spool.send()
        #expect(server.requests.map(\.path) == ["/now"])
        #expect(spool.waiting().map(\.id) == [later])

        // Proof that the hint is really used: plant a due operation, then put new/'s time back to the
        // recorded one. The run trusts the hint and sends nothing; --flush ignores hints and sends it.
        Self.setModified(spool.path + "/new", secondsAgo: 10)
        Self.setModified(spool.path + "/cur", secondsAgo: 10)
        try spool.send()
        let recorded = try #require(IdleHint.read(try spool.open()))
        spool.drop(
            "new", "planted", #"{"method":"PUT","url":"\#(server.baseURL)/planted"}"#,
            modified: Date(timeIntervalSinceNow: -60))
        Self.setModified(spool.path + "/new", nanoseconds: recorded.newModifiedNanoseconds)
        try spool.send()
        #expect(server.requests.count == 1, "an unchanged idle queue is not listed")
        try spool.send(["--flush"])
        #expect(server.requests.map(\.path).contains("/planted"))
    }
}

extension IdleHintTests {
    @Test func fileStillBeingWrittenPreventsTheHint() throws {
        let spool = TemporarySpool()
        let server = try TestServer { _ in .respond(204, [:], "") }
        defer { server.stop() }
        spool.drop("new", "being-written", #"{"method":"PUT","url":"#)
        Self.setModified(spool.path + "/new", secondsAgo: 10)
        Self.setModified(spool.path + "/cur", secondsAgo: 10)
        let library = try spool.open()
        let folderTime = try library.directory(.new).status().modifiedNanoseconds
        try spool.send()
        #expect(server.requests.isEmpty, "a young unparsable file is left for later")
        #expect(IdleHint.read(try spool.open()) == nil, "no hint while a producer may still be writing")
        // The producer finishes writing in place: no folder time changes, yet the next run must send it.
        spool.drop(
            "new", "being-written", #"{"method":"PUT","url":"\#(server.baseURL)/finished"}"#,
            modified: Date(timeIntervalSinceNow: -10))
        Self.setModified(spool.path + "/new", nanoseconds: folderTime)
        try spool.send()
        #expect(server.requests.map(\.path) == ["/finished"])
    }
}
