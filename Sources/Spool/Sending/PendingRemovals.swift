import Dispatch
import SpoolSystem

/// Removals of delivered files, made on threads of their own while the lanes go on.
///
/// Why: removing a file can block for as long as a request takes (ext4 frees its blocks in `unlinkat`, and
/// on a disk mounted `discard` waits for the device to discard them: 55 µs a file here, against 15 µs for a
/// rename). Made by a lane, it would hold the thread the lane runs on (with libcurl, an HTTP engine's, which
/// the lanes dealt to it share; else one of Swift's cooperative threads, one per core), and the next
/// request, of this lane or another, would wait for a disk it does not need. So these threads remove it: in
/// `cur/`, when nothing follows it in its key this round (its claim keeps the key until then; at most
/// `--concurrency` such), or else in `tmp/`, where a rename (`Spool.retire`) first put it out of the key's
/// way, since nothing in `tmp/` is ever sent (`Remover.takeOut` decides which). The worker waits for every
/// pending removal before it plans again and before its run ends (`drain`); what a crash leaves, recovery and
/// housekeeping take care of.
///
/// Why several threads: most of an `unlinkat`'s time here is a wait, not work (170 µs a file, 50 µs of it
/// CPU), and removals in one folder overlap: 5,950 a second from one thread, 9,400 from four, 11,600 from eight
/// (synced files on this machine's ext4). One thread capped delivery near its own rate, and past `limit`
/// waiting the lanes removed files themselves.
package final class PendingRemovals: Sendable {
    private struct State {
        var pending = 0
        /// Removals handed to each queue and not yet made.
        var queued = [Int](repeating: 0, count: PendingRemovals.threads)
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    /// How many removals are made at once, at most.
    package static let threads = 4

    /// How many removals a queue is given before the next queue is used. Why: a removal handed to a queue that
    /// is still working costs nothing more, one handed to an idle queue wakes its thread (a futex, on both
    /// sides); dealt out in turn, nearly every removal woke a thread (3% of a run's CPU). So the first queue
    /// takes them while it keeps up, and the next queues only when the disk falls behind.
    package static let depth = 8

    /// Threads off the cooperative pool: a serial Dispatch queue gets one of its own when it blocks.
    private let queues = (0..<PendingRemovals.threads).map { DispatchQueue(label: "spool.removals.\($0)") }
    private let state = Locked(State())

    /// Removal queues with nothing pending yet.
    package init() {}

    /// At most this many wait at once: the memory they hold stays small whatever the disk's pace, and a
    /// lane whose removal finds the queue full makes it itself.
    package static let limit = 64

    /// Runs `removal` on one of the removals' threads; false, and nothing done, when `limit` removals already wait
    /// (the caller then removes the file itself).
    package func add(_ removal: @escaping @Sendable () -> Void) -> Bool {
        let index = state.withLock { state -> Int? in
            guard state.pending < Self.limit else { return nil }
            let queued = state.queued
            let index = queued.firstIndex { $0 < Self.depth } ?? queued.indices.min { queued[$0] < queued[$1] }!
            state.pending += 1
            state.queued[index] += 1
            return index
        }
        guard let index else { return false }
        queues[index].async {
            removal()
            let waiters = self.state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.pending -= 1
                state.queued[index] -= 1
                guard state.pending == 0 else { return [] }
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
        return true
    }

    /// Runs `removal` on one of the removals' threads, or at once on the caller's when `limit` already wait.
    package func run(_ removal: @escaping @Sendable () -> Void) {
        if !add(removal) { removal() }
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
