import SpoolConfiguration
import SpoolControl
import SpoolDocument
import SpoolNames
import SpoolQueue
import SpoolReporting
import SpoolSending
import SpoolSystem

/// Why a waiting write waits when its name does not say: its origin paused (by the server's `Retry-After`,
/// a used-up quota or spool's learned rate) or down (unreachable, unavailable), as the sender's `.origins`
/// records it.
extension ControlSession {
    /// What the sender last learned of each origin, by share (`OriginRecord.share`).
    package func originRecords() -> [String: OriginRecord] {
        Dictionary(OriginRecord.read(spool).map { ($0.share, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// What `item`, waiting in `new/`, waits for at its origin: a pause (with its end) or the origin being
    /// down; nil when its origin holds it back for nothing.
    package func originWait(_ item: QueueItem, _ records: [String: OriginRecord]) -> (until: Int64?, why: String)? {
        guard item.folder == .new, !item.held, let operation = item.operation, operation.handler == nil else {
            return nil
        }
        let producer = spool.users.takesProducerDrops ? spool.users.keyScope(of: item.producer) : nil
        guard let record = records[OriginRecord.share(operation.origin, producer: producer)] else { return nil }
        return ControlSession.originWait(record, nowSeconds: nowSeconds)
    }

    /// What a write to `record`'s origin waits for at `nowSeconds`, in the words of `list` and `show`.
    package static func originWait(_ record: OriginRecord, nowSeconds: Int64) -> (until: Int64?, why: String)? {
        let until = Timestamp.formatRFC3339(record.pausedUntil)
        let since = Timestamp.formatRFC3339(record.unreachableSince)
        if record.pausedUntil > nowSeconds {
            switch record.pausedBy {
            case "rate":
                let rate = OriginRecord.format(rate: record.learnedRate)
                return (record.pausedUntil, "its origin's pace of \(rate)/s, learned by spool, until \(until)")
            case "unreachable", "unavailable":
                let state = record.unreachableSince > 0 ? "\(record.pausedBy) since \(since)" : record.pausedBy
                return (record.pausedUntil, "its origin, \(state); probed again at \(until)")
            default:
                let cause = OriginRecord.pauseCause(record.pausedBy) ?? "the server"
                return (record.pausedUntil, "its origin's pause until \(until), asked by \(cause)")
            }
        }
        if record.unreachableSince > 0 {
            let state = record.pausedBy == "unavailable" ? "unavailable" : "unreachable"
            return (nil, "its origin, \(state) since \(since); probed at the next run")
        }
        return nil
    }

    /// What `item` waits for, the one thing: its origin (`originWait`), the write ahead of it in its key, a
    /// dependency still queued, or a hold; nil when it waits for nothing but its retry time, or is due.
    /// `order` is the listing's memory of the writes before, oldest first.
    package func wait(
        _ item: QueueItem, _ records: [String: OriginRecord], _ order: inout KeyOrder
    ) -> (until: Int64?, why: String)? {
        let ahead = order.ahead(of: item)
        guard item.folder == .new else { return nil }
        if item.held { return (nil, "'spool-ctl release \(item.id)' (held)") }
        if let ahead { return (nil, "the write ahead of it in its key, \(ahead)") }
        // One listing of new/ and cur/ for every dependency of the listing, as the sender's plan does.
        let present = order.present
        let queued = { (id: String) in ((try? present.lookup(id, in: spool)) ?? nil) != nil }
        if let dependency = item.operation?.dependsOn.first(where: queued) {
            return (nil, "its dependency \(dependency), still queued")
        }
        return originWait(item, records)
    }
}

extension ControlSession {
    /// What one waiting `item` waits for (`wait`), from a listing of new/ and cur/ up to it.
    package func waitOfOne(_ item: QueueItem) -> String? {
        guard item.folder == .new else { return nil }
        let records = originRecords()
        var order = KeyOrder()
        var found: String?
        ControlSession.forEachItem(spool, [.new, .cur]) { other in
            guard other.id == item.id else {
                _ = order.ahead(of: other)
                return true
            }
            found = wait(other, records, &order)?.why
            return false
        }
        return found
    }
}

/// What a listing, oldest first, remembers of the writes before each one: the last write of each key still
/// queued (in new/ or cur/, by the key's hash in the name), so that a later write of the key says it waits for
/// that one. Eight bytes and an id per key, not per write.
package struct KeyOrder {
    private var last: [UInt64: String] = [:]
    /// Where each queued id is, listed once when a dependency is first asked about.
    package let present = Worker.PresentIndex()

    /// An empty memory.
    package init() {}

    /// The write ahead of `item` in its key when it waits in new/; notes `item` as its key's last.
    package mutating func ahead(of item: QueueItem) -> String? {
        guard item.folder == .new || item.folder == .cur, let hash = QueueName(item.fileName)?.state?.keyHash else {
            return nil
        }
        defer { last[hash] = item.id }
        return item.folder == .new ? last[hash] : nil
    }
}
