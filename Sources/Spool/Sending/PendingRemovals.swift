import Dispatch
import SpoolSystem

/// Removals of delivered files, made on a thread of their own while the lanes go on.
///
/// Why: removing a file can block for as long as a request takes (ext4 frees its blocks in `unlinkat`, and
/// on a disk mounted `discard` waits for the device to discard them). Made by a lane, it holds one of the
/// cooperative pool's threads, one per core, and the other lanes' requests wait for a disk they do not need.
///
/// Only a lane's last operation is removed here: the file stays in `cur/`, claimed by this live worker, until
/// it is gone, so no other worker sends its key meanwhile, and a crash before the removal leaves it where a
/// crash after the answer always could (recovery sends it again, with its Idempotency-Key). A lane with more
/// operations of the key removes the file itself before its next claim, so that a crash can never leave an
/// earlier write of the key to be sent after a later one. The worker waits for every pending removal before
/// it plans again and before its run ends (`drain`).
package final class PendingRemovals: Sendable {
    private struct State {
        var pending = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    /// One thread, off the cooperative pool: a serial Dispatch queue gets one of its own when it blocks.
    private let queue = DispatchQueue(label: "spool.removals")
    private let state = Locked(State())

    package init() {}

    /// At most this many wait at once: what a `kill -9` can leave delivered but not yet removed (to be sent
    /// again by recovery, with the same Idempotency-Key) stays a handful, whatever the disk's pace.
    package static let limit = 16

    /// Runs `removal` on the removals' thread; false, and nothing done, when `limit` removals already wait
    /// (the caller then removes the file itself).
    package func add(_ removal: @escaping @Sendable () -> Void) -> Bool {
        let taken = state.withLock { state -> Bool in
            guard state.pending < Self.limit else { return false }
            state.pending += 1
            return true
        }
        guard taken else { return false }
        queue.async {
            removal()
            let waiters = self.state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.pending -= 1
                guard state.pending == 0 else { return [] }
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
        return true
    }

    /// Returns once every removal added so far is made.
    package func drain() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state -> Bool in
                if state.pending == 0 { return true }
                state.waiters.append(waiter)
                return false
            }
            if done { waiter.resume() }
        }
    }
}
