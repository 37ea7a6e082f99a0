/// The names a round's first pass over `new/` saw, kept for its second pass while `new/` is short: the round
/// then lists `new/` once. Kept as one run of bytes, not a name each, so that keeping them costs two arrays.
package struct NameSnapshot {
    /// The most names kept by default. A longer `new/` is listed again by the second pass, so that a backlog of
    /// a million waiting names never sits in memory at once (this many cost about 2 MB).
    package static let defaultLimit = 16_384

    /// The most names this snapshot keeps (the tests make it small).
    package let limit: Int

    /// The names' bytes, one after another.
    private var bytes: [UInt8] = []
    /// Where each name ends in `bytes`.
    private var ends: [Int] = []

    /// An empty snapshot keeping at most `limit` names.
    package init(limit: Int = NameSnapshot.defaultLimit) {
        self.limit = limit
    }

    /// How many names are kept.
    package var count: Int { ends.count }

    /// Keeps `raw`; false, and nothing kept, once `limit` names are (the snapshot is then of no use).
    package mutating func add(_ raw: UnsafeBufferPointer<UInt8>) -> Bool {
        guard ends.count < limit else { return false }
        bytes.append(contentsOf: raw)
        ends.append(bytes.count)
        return true
    }

    /// Calls `body` with each name kept, in the order the listing gave them.
    package func forEach(_ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        bytes.withUnsafeBufferPointer { all in
            var start = 0
            for end in ends {
                body(UnsafeBufferPointer(rebasing: all[start..<end]))
                start = end
            }
        }
    }
}
