import Foundation
import Glibc
import SpoolTestSupport
import Testing
@testable import Spool
@testable import SpoolSystem
@testable import SpoolNames
@testable import SpoolQueue
@testable import SpoolReporting
@testable import SpoolControl

/// spool-ctl lists an operation, then moves it; a worker (or another spool-ctl) may move it first. The error
/// then says where it went, not that there is no such operation, and nothing else is touched.
@Suite struct MovedMeanwhileTests {
    /// An operation waiting in new/ under its admitted name, and the item spool-ctl found for it.
    private func waitingItem(_ spool: TemporarySpool) throws -> (Spool, QueueItem) {
        let opened = try spool.open()
        let id = try opened.enqueuePut("http://127.0.0.1:9/x")
        let item = try #require(try opened.locate(id))
        #expect(item.folder == Spool.Folder.new)
        return (opened, item)
    }

    /// Renames a file the way another process would, outside spool's own code.
    private func move(_ spool: TemporarySpool, _ from: String, to: String) {
        #expect(rename("\(spool.path)/\(from)", "\(spool.path)/\(to)") == 0, "rename \(from): \(Errno.current)")
    }

    @Test func claimedMeanwhileIsBeingSent() throws {
        let spool = TemporarySpool()
        let (opened, item) = try waitingItem(spool)
        var claimed = QueueName(item.fileName)!
        claimed.claim = Claim(owner: .current, since: Timestamp.nowSeconds())
        move(spool, "new/\(item.fileName.escaped)", to: "cur/\(claimed.fileName.escaped)")
        do {
            _ = try opened.hold(item)
            Issue.record("hold of a claimed operation succeeded")
        } catch {
            #expect(error.description.contains("\(item.id) is being sent by spool-send pid \(getpid())"), "\(error)")
            #expect(error.exitCode == 75)
        }
        #expect(spool.names("cur") == [claimed.fileName.escaped], "the claimed file is left as it was")
    }

    @Test func movedOrRenamedMeanwhileAsksToRunAgain() throws {
        let spool = TemporarySpool()
        let (opened, item) = try waitingItem(spool)
        // Into cur/ without a claim in its name: moved, not being sent.
        move(spool, "new/\(item.fileName.escaped)", to: "cur/\(item.id)")
        do {
            try opened.discard(item)
            Issue.record("discard of a moved operation succeeded")
        } catch {
            #expect(
                error.description == "\(item.id) moved from new/ to cur/ while spool-ctl worked on it; spool-ctl left "
                    + "it there: run the command again", "\(error)")
            #expect(error.exitCode == 75)
        }
        #expect(spool.names("cur") == [item.id], "the moved file is left as it was")

        // Renamed in new/ (a run deferred it): the same folder, a new name.
        var deferred = QueueName(item.fileName)!
        deferred.state!.attempts += 1
        move(spool, "cur/\(item.id)", to: "new/\(deferred.fileName.escaped)")
        do {
            _ = try opened.hold(item)
            Issue.record("hold of a renamed operation succeeded")
        } catch {
            #expect(error.description.contains("\(item.id) was renamed in new/ while spool-ctl worked on it"))
            #expect(error.exitCode == 75)
        }
        #expect(spool.names("new") == [deferred.fileName.escaped], "not held: \(spool.names("new"))")
    }

    /// Another spool-ctl retried a filed operation first. A plain retry finds it gone; one that rewrites the
    /// document (`--if-match`, and so `resolve`) must not bring back a second copy: the new document takes the
    /// old one's place by an exchange of names, which fails when the old one is gone.
    @Test(arguments: [nil, #""v2""#])
    func aFiledOperationRetriedMeanwhileIsLeftWhereItWent(ifMatch: String?) throws {
        let spool = TemporarySpool()
        spool.drop("failed", "filed-one", #"{"method":"PUT","url":"http://127.0.0.1:9/x"}"#)
        let opened = try spool.open()
        let item = try #require(try opened.locate("filed-one"))
        move(spool, "failed/filed-one", to: "new/filed-one")
        do {
            _ = try opened.retry(item, ifMatch: ifMatch)
            Issue.record("a second retry of one operation succeeded")
        } catch {
            #expect(
                error.description == "filed-one moved from failed/ to new/ while spool-ctl worked on it; spool-ctl "
                    + "left it there: run the command again", "\(error)")
            #expect(error.exitCode == 75)
        }
        #expect(spool.names("failed").isEmpty && spool.names("new") == ["filed-one"], "one copy: \(spool.names("new"))")
        #expect(spool.names("tmp").isEmpty, "the rewritten document is not left behind")
    }

    @Test func goneMeanwhileLeftTheSpool() throws {
        let spool = TemporarySpool()
        let (opened, item) = try waitingItem(spool)
        #expect(unlink("\(spool.path)/new/\(item.fileName.escaped)") == 0)
        do {
            _ = try opened.hold(item)
            Issue.record("hold of a delivered operation succeeded")
        } catch {
            #expect(
                error.description == "\(item.id) left new/ while spool-ctl worked on it (delivered, or discarded by "
                    + "someone else)", "\(error)")
            #expect(error.exitCode == 66)
        }
    }
}
