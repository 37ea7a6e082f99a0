import Dispatch
import SpoolDocument
import SpoolNames
import SpoolSystem

/// Documents of the operations the lanes will come to next, read on a thread of its own while the lanes'
/// thread sends.
///
/// Why: with libcurl, the lanes run on an HTTP engine's thread, which also runs libcurl and TLS; over https
/// at `--concurrency 4` that one thread is the bottleneck (busy the whole run, the other core half idle), and
/// opening, reading and parsing a document was a tenth of its work. Read here, a lane finds its operation
/// ready. Only a read that succeeded is kept: anything else (gone, rejected, a fault, a second name) the
/// lane's own read meets again and handles. A read kept here is older than a lane's own would be, as a lane's
/// own is when it waits for room at its origin between reading and claiming: the claim finds a file gone, and
/// `Worker.asClaimed` one changed by a merge (another file), and reads it again.
package final class ReadAhead: Sendable {
    /// A document read: the operation and the file it was read from.
    package typealias Read = (operation: Operation, file: FileIdentity)

    private enum Slot {
        /// Asked for and not read yet.
        case wanted
        /// Being read now.
        case reading
        /// Read; the lane takes it.
        case read(Read)
    }

    private struct State {
        /// What was asked for and not taken or forgotten yet, by file name.
        var slots: [FileName: Slot] = [:]
        /// The entries asked for, in order; `next` is the first not yet looked at.
        var queue: [QueueEntry] = []
        var next = 0
        /// The reading thread is at work (or about to be): asking for more needs no wake-up.
        var running = false
        /// The size of the files whose reads are kept, for `keptBytesLimit`.
        var keptBytes = 0

        /// Drops `fileName`'s slot, and what its read kept.
        mutating func drop(_ fileName: FileName) -> Read? {
            guard case let .read(read) = slots.removeValue(forKey: fileName) else { return nil }
            keptBytes -= read.file.size
            return read
        }
    }

    private let state = Locked(State())

    /// How many documents are asked for at once: each batch may wake the reading thread (a futex on both
    /// sides). Over 10,000 plain-http operations on tmpfs, 6 rounds: batches of 8 sent 14,800/s for 1% more
    /// CPU than no read-ahead (12,800/s); batches of 32, 14,500/s for 3% less.
    package static let batch = 32

    /// At most this many bytes of documents are kept read (by their files' sizes): a document may be as large
    /// as `--max-size`, and a lane asks for a batch of them. What would go past it is left to the lanes.
    package static let keptBytesLimit = 4 << 20
    private let thread = DispatchQueue(label: "spool.read-ahead")
    private let reader: @Sendable (QueueEntry) -> Read?

    /// A read-ahead that reads with `reader`, which returns nil for what it must not or could not read.
    package init(reader: @escaping @Sendable (QueueEntry) -> Read?) {
        self.reader = reader
    }

    /// Reads `entries` soon, in this order, after those asked for before.
    package func want(_ entries: some Sequence<QueueEntry>) {
        let start = state.withLock { state -> Bool in
            for entry in entries where state.slots[entry.fileName] == nil {
                state.slots[entry.fileName] = .wanted
                state.queue.append(entry)
            }
            guard !state.running, state.next < state.queue.count else { return false }
            state.running = true
            return true
        }
        if start { thread.async { self.drain() } }
    }

    /// Drops what was asked for `entries` and not taken: their lane stopped before them.
    package func forget(_ entries: some Sequence<QueueEntry>) {
        state.withLock { state in
            for entry in entries { _ = state.drop(entry.fileName) }
        }
    }

    /// `entry`'s document if it was read; nil when it was not (yet), and then it never will be: the lane reads
    /// it itself, and a read under way is dropped when it ends.
    package func take(_ entry: QueueEntry) -> Read? {
        state.withLock { $0.drop(entry.fileName) }
    }

    private func drain() {
        while true {
            let entry = state.withLock { state -> QueueEntry? in
                while state.next < state.queue.count {
                    let entry = state.queue[state.next]
                    state.next += 1
                    guard case .wanted = state.slots[entry.fileName] else { continue }
                    // Full: not read, so not kept (a lane that takes it will read it).
                    guard state.keptBytes < ReadAhead.keptBytesLimit else {
                        state.slots[entry.fileName] = nil
                        continue
                    }
                    state.slots[entry.fileName] = .reading
                    return entry
                }
                state.queue.removeAll(keepingCapacity: true)
                state.next = 0
                state.running = false
                return nil
            }
            guard let entry else { return }
            let read = reader(entry)
            state.withLock { state in
                guard case .reading = state.slots[entry.fileName] else { return }
                guard let read, state.keptBytes + read.file.size <= ReadAhead.keptBytesLimit else {
                    state.slots[entry.fileName] = nil
                    return
                }
                state.keptBytes += read.file.size
                state.slots[entry.fileName] = .read(read)
            }
        }
    }
}
