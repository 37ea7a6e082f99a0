import SpoolSystem

/// An operation waiting in `new/` or held in `cur/`, known from its file name alone.
///
/// A class: queues of thousands are sorted and passed between lanes, and moving one reference is far
/// cheaper than copying a name, an id and a state each time.
package final class QueueEntry: Sendable, Equatable {
    /// The entry's file name in its folder.
    package let fileName: FileName
    /// The name taken apart; its state is never nil.
    package let name: QueueName
    /// The retry state.
    package let state: RetryState
    /// The lane it belongs to: its key hash, set apart by its producer where producers drop
    /// (`Spool.laneKey`).
    package let laneKey: UInt64

    /// An entry for a parsed name, which must carry a retry state; in its key hash's lane unless told.
    package init(fileName: FileName, name: QueueName, laneKey: UInt64? = nil) {
        self.fileName = fileName
        self.name = name
        self.state = name.state!
        self.laneKey = laneKey ?? name.state!.keyHash
    }

    /// The operation id.
    package var id: String { name.id }

    /// Enqueue order: order stamp, then id. Inlinable: sorting a large queue calls it a million times.
    @inlinable
    package static func precedes(_ a: QueueEntry, _ b: QueueEntry) -> Bool {
        if a.state.orderMicroseconds != b.state.orderMicroseconds {
            return a.state.orderMicroseconds < b.state.orderMicroseconds
        }
        return a.name.id.utf8.lexicographicallyPrecedes(b.name.id.utf8)
    }

    /// Equal when the file names and the parsed names are; the lane key is not compared.
    package static func == (a: QueueEntry, b: QueueEntry) -> Bool {
        a.fileName == b.fileName && a.name == b.name
    }
}
