import SpoolConfiguration
import SpoolControl
import SpoolDocument
import SpoolNames
import SpoolQueue
import SpoolReporting
import SpoolSystem

/// Why a waiting write waits when its name does not say: its origin paused (by the server's `Retry-After`
/// or a used-up quota) or unreachable, as the sender's `.origins` records it.
extension ControlSession {
    /// What the sender last learned of each origin, by share (`OriginRecord.share`).
    package func originRecords() -> [String: OriginRecord] {
        Dictionary(OriginRecord.read(spool).map { ($0.share, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// What `item`, waiting in `new/`, waits for at its origin: a pause (with its end) or the origin being
    /// unreachable; nil when its origin holds it back for nothing.
    package func originWait(_ item: QueueItem, _ records: [String: OriginRecord]) -> (until: Int64?, why: String)? {
        guard item.folder == .new, !item.held, let operation = item.operation, operation.handler == nil else {
            return nil
        }
        let producer = spool.takesProducerDrops ? spool.keyScope(of: item.dropper) : nil
        guard let record = records[OriginRecord.share(operation.origin, producer: producer)] else { return nil }
        if record.pausedUntil > nowSeconds {
            let cause = OriginRecord.pauseCause(record.pausedBy) ?? "the server"
            return (record.pausedUntil, "its origin's pause until \(Timestamp.formatRFC3339(record.pausedUntil)), "
                + "asked by \(cause)")
        }
        if record.unreachableSince > 0 {
            return (nil, "its origin, unreachable since \(Timestamp.formatRFC3339(record.unreachableSince))")
        }
        return nil
    }
}
