import Dispatch
import SpoolSystem

/// Removals of delivered files, made on a thread of their own while the lanes go on.
///
/// Why: removing a file can block for as long as a request takes (ext4 frees its blocks in `unlinkat`, and
/// on a disk mounted `discard` waits for the device to discard them: 55 µs a file here, against 15 µs for a
/// rename). Made by a lane, it would hold one of the cooperative pool's threads, one per core, and the next
/// request, of this lane or another, would wait for a disk it does not need. So a delivered file is retired
/// from `cur/` to `tmp/` by a rename (`Spool.retire`), which frees its key at once, since nothing in `tmp/` is
/// ever sent, and is removed from there by this thread. The worker waits for every pending removal before it
/// plans again and before its run ends (`drain`); what a crash leaves in `tmp/`, housekeeping removes.
package final class PendingRemovals: Sendable {
    private struct State {
        var pending = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    /// One thread, off the cooperative pool: a serial Dispatch queue gets one of its own when it blocks.
    private let queue = DispatchQueue(label: "spool.removals")
    private let state = Locked(State())

    package init() {}

    /// At most this many wait at once: the memory they hold stays small whatever the disk's pace, and a
    /// lane whose removal finds the queue full makes it itself.
    package static let limit = 64

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
