import Foundation
import SpoolTestSupport
import Testing
@testable import Spool
@testable import SpoolSystem
@testable import SpoolNames
@testable import SpoolQueue
@testable import SpoolSending
@testable import SpoolReporting
@testable import SpoolControl

/// `depends_on` asks where a dependency is (`Worker.PresentIndex`): it must never look absent while it is
/// still queued, also while another thread of the worker gives its claim back (`cur/` → `new/`) between the
/// index's two listings. Real files, a real second thread.
@Suite struct PresentIndexTests {
    @Test func anOperationGoingBackAndForthBetweenNewAndCurIsAlwaysFound() throws {
        let temporary = TemporarySpool()
        let spool = try temporary.open()
        func put(_ path: String) throws -> String { try spool.enqueuePut("http://127.0.0.1:9/\(path)") }
        let id = try put("dependency")
        // Others, so that a listing takes long enough to be overtaken.
        for index in 0..<300 { _ = try put("item/\(index)") }
        var entries: [QueueEntry] = []
        try spool.scanNew { entries.append($0) }
        let entry = try #require(entries.first { $0.id == id })
        let stop = Locked(false), moves = Locked(0)
        // Claimed and given back, each under the lock, as a lane and its deferral do.
        let mover = Thread {
            while !stop.withLock({ $0 }) {
                guard let claimed = spool.withLock({ transaction in transaction.claim(entry) }).value else { break }
                guard spool.withLock({ transaction in transaction.unclaim(claimed, state: claimed.state) }).wasMoved
                else { break }
                moves.withLock { $0 += 1 }
            }
        }
        mover.start()
        var missed = 0
        for _ in 0..<400 where try Worker.PresentIndex().lookup(id, in: spool) == nil { missed += 1 }
        stop.withLock { $0 = true }
        #expect(eventually(within: 10) { mover.isFinished })
        #expect(moves.withLock { $0 } > 100, "it moved all along: the check is not empty")
        #expect(missed == 0, "looked absent \(missed) times in 400")
    }

    /// A round's index is listed once; a dependency put back from `failed/` after that (`spool-ctl retry`)
    /// must be found all the same, not taken for done: `.unfiled` says that something came back.
    @Test func aDependencyRetriedAfterTheListingIsFound() throws {
        let temporary = TemporarySpool()
        let spool = try temporary.open()
        temporary.drop("failed", "dependency", #"{"method":"PUT","url":"http://127.0.0.1:9/x"}"#)
        let index = Worker.PresentIndex()
        #expect(try index.lookup("long-gone", in: spool) == nil, "listed now, the dependency still filed")
        #expect(try index.lookup("dependency", in: spool) == nil)
        let item = try #require(try spool.locate("dependency"))
        _ = try spool.retry(item)
        #expect(temporary.names("failed").isEmpty && temporary.names("new").count == 1)
        let place = try index.lookup("dependency", in: spool)
        #expect(place?.folder == .new, "found in new/ after its retry, through a new listing")
        #expect(try index.lookup("long-gone", in: spool) == nil)
    }
}
