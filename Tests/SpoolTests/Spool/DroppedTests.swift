import Foundation
import Glibc
import Testing
@testable import SpoolSystem
@testable import SpoolNames
@testable import SpoolQueue

/// Dropped files read without the lock are admitted only if their name still holds the file that was read:
/// a merge another worker folded first is not folded again (which would undo a later change), and a file
/// its producer replaced meanwhile is read again.
@Suite struct DroppedTests {
    /// Reads `name` in `new/` as the planner does, outside the lock.
    private func read(_ spool: Spool, _ name: String) throws -> Spool.Dropped {
        let read = try spool.readDropped(
            FileName(name), id: name, maxSize: 1 << 20, maxPayload: 1 << 20,
            nowMicroseconds: Timestamp.nowMicroseconds(), log: .silent)
        guard case let .ready(dropped) = read else { throw NotRead(name: name) }
        return dropped
    }

    /// A document the test drops could not be read.
    private struct NotRead: Error {
        let name: String
    }

    @Test func aMergeAnotherWorkerFoldedFirstIsNotFoldedAgain() throws {
        let temporary = TemporarySpool()
        let spool = try temporary.open()
        let url = "http://127.0.0.1:9/items/1"
        let earlier = Date().addingTimeInterval(-10)
        temporary.drop("new", "create", #"{"method":"PUT","url":"\#(url)","key":"i1","body":{"a":1}}"#, modified: earlier)
        temporary.drop(
            "new", "edit-1", #"{"method":"PATCH","url":"\#(url)","key":"i1","merge":true,"body":{"b":2}}"#,
            modified: earlier.addingTimeInterval(1))
        spool.admitDropped(
            [FileName("create")], maxSize: 1 << 20, maxPayload: 1 << 20, log: .silent, isStopping: { false },
            fault: { Issue.record("\($0)") })
        // Two workers read the same edit; the first folds it, then a later edit removes its field.
        let stale = try read(spool, "edit-1")
        spool.admitDropped(
            [FileName("edit-1")], maxSize: 1 << 20, maxPayload: 1 << 20, log: .silent, isStopping: { false },
            fault: { Issue.record("\($0)") })
        temporary.drop(
            "new", "edit-2", #"{"method":"PATCH","url":"\#(url)","key":"i1","merge":true,"body":{"b":null}}"#)
        spool.admitDropped(
            [FileName("edit-2")], maxSize: 1 << 20, maxPayload: 1 << 20, log: .silent, isStopping: { false },
            fault: { Issue.record("\($0)") })
        let waiting = temporary.operations("new")
        #expect(waiting.count == 1 && waiting[0].hasPrefix("create:"), "\(waiting)")
        #expect(temporary.read("new", waiting[0]).contains(#""body":{"a":1}"#), "both edits merged")
        // The second worker's turn comes: its edit is gone from `new/`, and nothing is folded again.
        let admitted = try spool.withLock { transaction throws(SystemCallError) in
            try transaction.admit(stale, log: .silent)
        }
        #expect(admitted == nil)
        #expect(temporary.read("new", waiting[0]).contains(#""body":{"a":1}"#), "the later change stands")
    }

    @Test func aFileReplacedSinceItWasReadIsLeftToBeReadAgain() throws {
        let temporary = TemporarySpool()
        let spool = try temporary.open()
        temporary.drop("new", "a", #"{"method":"PUT","url":"http://127.0.0.1:9/one","body":"one"}"#)
        let dropped = try read(spool, "a")
        // Its producer renames another document over the name (the shell protocol allows it).
        temporary.drop("tmp", "a", #"{"method":"PUT","url":"http://127.0.0.1:9/two","key":"other","body":"two"}"#)
        #expect(rename("\(temporary.path)/tmp/a", "\(temporary.path)/new/a") == 0)
        let admitted = try spool.withLock { transaction throws(SystemCallError) in
            try transaction.admit(dropped, log: .silent)
        }
        #expect(admitted == nil)
        #expect(temporary.names("new") == ["a"], "left under its plain name for the next round")
        let again = try read(spool, "a")
        let entry = try spool.withLock { transaction throws(SystemCallError) in
            try transaction.admit(again, log: .silent)
        }
        #expect(entry?.id == "a")
        #expect(
            entry?.state.keyHash == RetryState.keyHash("other", scope: nil), "admitted with the key of what it holds")
    }
}
