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

    /// The first thread takes removals while it keeps up (each one handed to a busy queue wakes nothing); the
    /// next thread starts only when `depth` wait on the first.
    @Test func theNextThreadStartsOnlyWhenTheFirstFallsBehind() async {
        let removals = PendingRemovals()
        let gate = DispatchSemaphore(value: 0)
        let made = Locked(0)
        #expect(removals.add { gate.wait() })
        for _ in 1..<PendingRemovals.depth { #expect(removals.add { made.withLock { $0 += 1 } }) }
        // Behind the blocked one, on the first thread: none of them may run yet.
        let spilled = DispatchSemaphore(value: 0)
        #expect(removals.add { spilled.signal() })
        #expect(spilled.wait(timeout: .now() + 10) == .success, "the next thread took the removal the first had no room for")
        #expect(made.withLock { $0 } == 0, "removals dealt out in turn ran while the first thread was blocked")
        gate.signal()
        await removals.drain()
        #expect(made.withLock { $0 } == PendingRemovals.depth - 1)
    }

    @Test func drainWithNothingPendingReturnsAtOnce() async {
        let removals = PendingRemovals()
        await removals.drain()
        #expect(removals.add {})
        await removals.drain()
        await removals.drain()
    }
}
