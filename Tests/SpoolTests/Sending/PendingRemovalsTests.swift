import Dispatch
import Testing
@testable import SpoolSending
@testable import SpoolSystem

/// The removals a worker waits for before it plans again and before its run ends.
@Suite struct PendingRemovalsTests {
    @Test func drainReturnsOnlyOnceEveryRemovalIsMade() async {
        let removals = PendingRemovals()
        let made = Locked(0)
        // The first removal blocks until another thread lets it go, as an unlink that waits for the disk.
        let gate = DispatchSemaphore(value: 0)
        #expect(removals.add {
            gate.wait()
            made.withLock { $0 += 1 }
        })
        let taken = (1..<PendingRemovals.limit).filter { _ in removals.add { made.withLock { $0 += 1 } } }.count
        #expect(taken == PendingRemovals.limit - 1)
        DispatchQueue.global().async { gate.signal() }
        await removals.drain()
        #expect(made.withLock { $0 } == PendingRemovals.limit)
    }

    @Test func aFullQueueRefusesMoreAndTheCallerRemovesItself() async {
        let removals = PendingRemovals()
        let gate = DispatchSemaphore(value: 0)
        for _ in 0..<PendingRemovals.limit { #expect(removals.add { gate.wait() }) }
        #expect(!removals.add {})
        for _ in 0..<PendingRemovals.limit { gate.signal() }
        await removals.drain()
        #expect(removals.add {})
        await removals.drain()
    }

    @Test func drainWithNothingPendingReturnsAtOnce() async {
        let removals = PendingRemovals()
        await removals.drain()
        #expect(removals.add {})
        await removals.drain()
        await removals.drain()
    }
}
