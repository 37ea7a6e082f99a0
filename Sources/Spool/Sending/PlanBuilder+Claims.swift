import SpoolNames
import SpoolQueue
import SpoolSystem

/// The keys whose operations are claimed in `cur/`: no lane is formed for them.
extension PlanBuilder {
    /// The keys another worker (or a dead one) holds a claim of.
    package mutating func listHeld(_ spool: Spool) throws(Errno) {
        listing = "\(spool.path)/cur"
        var found = Set<UInt64>()
        var fault: Errno?
        try spool.forEachRawEntry(in: .cur) { raw, _ in Self.noteHeld(raw, spool, into: &found, fault: &fault) }
        if let fault { throw fault }
        held = found
    }

    /// The same from the names a listing of `cur/` made already found (the light front's housekeeping's).
    package mutating func takeHeld(_ names: [FileName], _ spool: Spool) throws(Errno) {
        listing = "\(spool.path)/cur"
        var found = Set<UInt64>()
        var fault: Errno?
        for name in names {
            name.bytes.withUnsafeBufferPointer { raw in Self.noteHeld(raw, spool, into: &found, fault: &fault) }
        }
        if let fault { throw fault }
        held = found
    }

    /// Adds the key of the claim named `raw` to `found`.
    private static func noteHeld(
        _ raw: UnsafeBufferPointer<UInt8>, _ spool: Spool, into found: inout Set<UInt64>, fault: inout Errno?
    ) {
        guard let facts = QueueName.Facts(raw), let lane = lane(facts.keyHash, of: raw, in: .cur, spool, fault: &fault)
        else { return }
        found.insert(lane)
    }
}
