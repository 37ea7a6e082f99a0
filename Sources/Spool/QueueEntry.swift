/// An operation waiting in `new/` or held in `cur/`, known from its file name alone.
public struct QueueEntry: Sendable, Equatable {
    /// The entry's file name in its folder.
    public let fileName: FileName
    /// The name taken apart; its state is never nil.
    public let name: QueueName

    /// An entry for a parsed name.
    public init(fileName: FileName, name: QueueName) {
        self.fileName = fileName
        self.name = name
    }

    /// The retry state.
    public var state: RetryState { name.state! }
    /// The operation id.
    public var id: String { name.id }

    /// Enqueue order: order stamp, then id.
    public static func precedes(_ a: QueueEntry, _ b: QueueEntry) -> Bool {
        if a.state.order != b.state.order { return a.state.order < b.state.order }
        return a.id.utf8.lexicographicallyPrecedes(b.id.utf8)
    }
}
