/// What a message is about, for the journal: the kind of event (its `MESSAGE_ID`, which the message catalog
/// explains) and the operation, origin, outcome, HTTP status and trace it concerns. A plain line on standard
/// error leaves them out: its text says the same.
package struct LogFields: Sendable {
    /// The kinds of message the catalog explains, each with its `MESSAGE_ID` (fixed: operators' filters and
    /// the catalog name them).
    package enum Event: String, Sendable, CaseIterable {
        case failed, conflict, paused, unreachable, unavailable, reachable, reloaded, notReloaded

        /// The event's `MESSAGE_ID`, 128 bits in hexadecimal, as `journalctl --new-id128` makes them.
        package var messageID: String {
            switch self {
            case .failed: "f34a6fbcd36a48569faf44b8db5e1db9"
            case .conflict: "e4e66de1c7304ba2820f3b9a319fd00c"
            case .paused: "ebbaa6aee3944c72a6d3ab354805abf5"
            case .unreachable: "20fac5f8dfab49c38cb8ff11e37d59e7"
            case .unavailable: "3c1d6abb67584a48923ba81ae343523f"
            case .reachable: "ad8eb36f12074682840a01a80f35e2fa"
            case .reloaded: "ea620f18311b4399bca363491a751bac"
            case .notReloaded: "335bc9e5c04f49f38b444f1c4e5a653f"
            }
        }
    }

    package var event: Event?
    /// The operation's id (`SPOOL_ID`).
    package var id: String?
    /// Its origin, `scheme://host[:port]` (`SPOOL_ORIGIN`).
    package var origin: String?
    /// Where it went: `done`, `deferred`, `failed`, `conflict`, `coalesced` (`SPOOL_OUTCOME`).
    package var outcome: String?
    /// The HTTP status of the answer that decided it (`SPOOL_STATUS`).
    package var status: String?
    /// The trace the write belongs to (`SPOOL_TRACE_ID`), and this attempt's span (`SPOOL_SPAN_ID`).
    package var traceID: String?, spanID: String?

    package init(
        _ event: Event? = nil, id: String? = nil, origin: String? = nil, outcome: String? = nil,
        status: String? = nil, traceID: String? = nil, spanID: String? = nil
    ) {
        (self.event, self.id, self.origin, self.outcome, self.status) = (event, id, origin, outcome, status)
        (self.traceID, self.spanID) = (traceID, spanID)
    }

    /// These fields for operation `id` filed in `folder` (`failed` or `conflict`) for an answer of `status`.
    package func filed(_ id: String, in folder: String, status: String?) -> LogFields {
        var fields = self
        (fields.id, fields.outcome, fields.status) = (id, folder, status)
        fields.event = folder == "conflict" ? .conflict : .failed
        return fields
    }

    /// The journal entry of `message` at syslog `priority` from `program` about `spool`: these fields after
    /// the message's.
    package func entry(message: String, priority: Int, program: String, spool: String? = nil)
        -> [(name: String, value: String)]
    {
        var fields: [(name: String, value: String)] = [
            ("MESSAGE", message), ("PRIORITY", String(priority)), ("SYSLOG_IDENTIFIER", program),
        ]
        if let spool { fields.append(("SPOOL_DIR", spool)) }
        if let event { fields.append(("MESSAGE_ID", event.messageID)) }
        let named: [(String, String?)] = [
            ("SPOOL_ID", id), ("SPOOL_ORIGIN", origin), ("SPOOL_OUTCOME", outcome), ("SPOOL_STATUS", status),
            ("SPOOL_TRACE_ID", traceID), ("SPOOL_SPAN_ID", spanID),
        ]
        for case let (name, value?) in named { fields.append((name, value)) }
        return fields
    }
}
