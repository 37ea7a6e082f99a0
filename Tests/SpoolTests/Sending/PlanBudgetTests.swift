import Foundation
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

/// A round holds the first operations of the keys that go first, not the whole queue: what it keeps follows
/// what it can send.
@Suite struct PlanBudgetTests {
    func queue(_ spool: TemporarySpool, keys: Int, each: Int) throws -> Spool {
        let library = try spool.open()
        for i in 0..<(keys * each) {
            let document = JSON.object([
                ("method", .string("PUT")), ("url", .string("http://127.0.0.1:9/item/\(i % keys)")),
                ("priority", .number(i % keys == keys - 1 ? "3" : "0"))
            ])
            _ = try library.enqueue(try Operation(document: document))
        }
        return library
    }

    /// One round planned by `builder` over `spool`: the keys it chose, and the plan.
    func plan(_ builder: inout PlanBuilder, _ spool: Spool) throws -> (due: Set<UInt64>, more: Bool, plan: Worker.Plan)
    {
        _ = try builder.listWaiting(spool)
        try builder.listHeld(spool)
        let due = builder.dueKeys()
        let more = builder.plan.more
        _ = try builder.collect(due, spool)
        return (due, more, builder.finish())
    }

    @Test func aRoundKeepsTheFirstOfEachKeyWithinItsBudget() throws {
        let temporary = TemporarySpool()
        let spool = try queue(temporary, keys: 3, each: 40)
        var builder = PlanBuilder(nowSeconds: Timestamp.nowSeconds(), parked: [], options: WorkerOptions())
        builder.roundBudget = 12
        let (due, _, plan) = try self.plan(&builder, spool)
        #expect(due.count == 3)
        #expect(plan.lanes.count == 3 && plan.lanes.allSatisfy { $0.count == 4 }, "\(plan.lanes.map(\.count))")
        #expect(plan.more, "the rest waits for the next round")
        let all = temporary.names("new").compactMap { QueueName(FileName($0)) }
        for lane in plan.lanes {
            let mine = all.filter { $0.state!.keyHash == lane[0].state.keyHash }.sorted {
                $0.state!.orderMicroseconds < $1.state!.orderMicroseconds
            }
            #expect(lane.map(\.id) == mine.prefix(4).map(\.id), "the first four of the key, in order")
        }
        #expect(plan.lanes[0][0].state.priority == 3, "the urgent key first")
    }

    @Test func aRoundFormsAtMostItsBudgetOfLanesThoseThatGoFirst() throws {
        let temporary = TemporarySpool()
        let spool = try queue(temporary, keys: 10, each: 2)
        var builder = PlanBuilder(nowSeconds: Timestamp.nowSeconds(), parked: [], options: WorkerOptions())
        builder.laneBudget = 4
        let (due, more, plan) = try self.plan(&builder, spool)
        #expect(due.count == 4 && more)
        #expect(plan.lanes.first?.first?.state.priority == 3, "the urgent key is among them, first")
        let heads = plan.lanes.dropFirst().map { $0[0].state.orderMicroseconds }
        #expect(heads == heads.sorted(), "then the oldest keys")
    }

    /// The front only asks whether to start a sender: it stops at the first key that is due for certain,
    /// forms no lane, and still finds nothing due (with the next due time) in a queue that waits.
    @Test func theFrontStopsAtTheFirstDueKeyAndStillSeesAWaitingQueue() throws {
        let temporary = TemporarySpool()
        let spool = try queue(temporary, keys: 3, each: 2)
        let worker = Worker(spool: spool, options: WorkerOptions())
        let deciding = worker.makePlan(deciding: true)
        #expect(deciding.foundDue && deciding.lanes.isEmpty)
        #expect(worker.makePlan().lanes.count == 3, "a sender's plan forms every lane")
        #expect(worker.hasDueWork())

        let waiting = TemporarySpool()
        let later = try waiting.open()
        let notBefore = Timestamp.formatRFC3339(Timestamp.nowSeconds() + 3600)
        _ = try later.enqueue(
            try Operation(
                document: .object([
                    ("method", .string("PUT")), ("url", .string("http://127.0.0.1:9/later")),
                    ("not_before", .string(notBefore))
                ])))
        let idle = Worker(spool: later, options: WorkerOptions()).makePlan(deciding: true)
        #expect(!idle.foundDue && idle.lanes.isEmpty)
        #expect(idle.nextDue != nil, "the next due time is still learned, for the idle hint")
        #expect(!Worker(spool: later, options: WorkerOptions()).hasDueWork())
    }

    /// Two operations of one key with the same order stamp: the first by id is not due, so nothing is, and
    /// only the second pass can tell. The front must not take the tie for a due key.
    @Test func aTiedHeadIsSortedBeforeTheFrontCallsItDue() throws {
        let temporary = TemporarySpool()
        let later = Timestamp.nowSeconds() + 3600, order = (Timestamp.nowSeconds() - 10) * 1_000_000
        temporary.drop("new", "a-first:o=\(order),k=00000000000000ab,a=1,t=\(later)", "{}")
        temporary.drop("new", "b-second:o=\(order),k=00000000000000ab", "{}")
        let worker = Worker(spool: try temporary.open(), options: WorkerOptions())
        let plan = worker.makePlan(deciding: true)
        #expect(!plan.foundDue && plan.lanes.isEmpty, "the key's first operation waits until \(later)")
        #expect(plan.nextDue == later)
        #expect(!worker.hasDueWork())
    }

    /// A DELETE dropped under a plain name cancels the create that was the only due work: the front, which
    /// noted the create as its key's head before taking the DELETE in, must not start a sender for nothing.
    @Test func aDroppedDeleteThatCancelsTheOnlyDueCreateLeavesNothingDue() throws {
        let temporary = TemporarySpool()
        let spool = try temporary.open()
        _ = try spool.enqueue(
            try Operation(
                document: .object([
                    ("method", .string("POST")), ("url", .string("http://127.0.0.1:9/items")),
                    ("key", .string("i2")), ("creates", .bool(true))
                ])))
        // Dropped after the create: a file's time comes from the kernel's coarse clock, which can read
        // earlier than the create's stamp taken just before, so it is set a second later.
        temporary.drop(
            "new", "delete-2", #"{"method":"DELETE","url":"http://127.0.0.1:9/items/2","key":"i2"}"# + "\n",
            modified: Date().addingTimeInterval(1))
        #expect(!Worker(spool: spool, options: WorkerOptions()).hasDueWork())
        #expect(temporary.names("new").isEmpty, "the create and the DELETE are both gone: \(temporary.names("new"))")
    }
}
