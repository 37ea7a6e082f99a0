import SpoolConfiguration
import SpoolDocument
import SpoolHandlers
import SpoolNames
import SpoolQueue
import SpoolSystem
import SpoolTransport

/// One operation as `spool-ctl` shows it: where it is, its retry state, its request and, when filed, why.
package struct QueueItem: Sendable {
    /// The operation id.
    package var id: String
    /// The folder it is in: new, cur, failed or conflict.
    package var folder: Spool.Folder
    /// Its file name in that folder.
    package var fileName: FileName
    /// Attempts made so far.
    package var attempts: Int
    /// Epoch seconds of the next attempt, when deferred.
    package var dueSeconds: Int64?
    /// Short token of the last error, if any.
    package var lastError: String?
    /// Enqueue order stamp, microseconds since the epoch.
    package var orderMicroseconds: Int64
    /// The claim, for operations in `cur/`.
    package var claim: Claim?
    /// The document, when it could be read and checked.
    package var operation: Operation?
    /// Why the document could not be read, if it could not.
    package var problem: String?
    /// The `ID.why` fields, for filed operations.
    package var reason: FilingReason
    /// Size of the file in bytes.
    package var size: Int
    /// Who dropped it: its file's owner (nil when the file could not be looked at).
    package var producer: UInt32? = nil
    /// What a waiting write waits for beyond its own retry time (its origin's pause, its origin unreachable),
    /// when `spool-ctl` looked (`ControlSession.originWait`).
    package var waitsFor: String? = nil

    /// The producer as `list` shows it: a login name, else the user id.
    package var producerName: String? {
        producer.map { UserDatabase.name(of: $0) ?? String($0) }
    }

    /// The one-line reason: the `reason` field of `ID.why`, else the problem with the document.
    package var reasonLine: String? {
        reason["reason"] ?? problem
    }

    /// Seconds since enqueue at `nowSeconds`.
    package func age(nowSeconds: Int64) -> Int64 { max(0, nowSeconds - orderMicroseconds / 1_000_000) }

    /// Whether `spool-ctl hold` put it on hold.
    package var held: Bool { folder == .new && QueueName(fileName)?.state?.held == true }

    /// A display form: `pending`, `deferred`, `held`, `sending`, `failed`, `conflict`.
    package func stateWord(nowSeconds: Int64) -> String {
        switch folder {
        case .new: held ? "held" : (dueSeconds ?? 0) > nowSeconds ? "deferred" : "pending"
        case .cur: "sending"
        default: folder.rawValue
        }
    }

    /// One JSON object with stable field names, for `--json` (one per line, for jq).
    package func json(nowSeconds: Int64, full: Bool = false) -> JSON {
        func optional(_ value: String?) -> JSON { value.map(JSON.string) ?? .null }
        var members: [(key: String, value: JSON)] = [
            ("id", .string(id)),
            ("state", .string(stateWord(nowSeconds: nowSeconds))),
            ("folder", .string(folder.rawValue)),
            ("file", .string(fileName.escaped)),
            ("attempts", .number(String(attempts))),
            ("next_attempt", dueSeconds.map { .string(Timestamp.formatRFC3339($0)) } ?? .null),
            ("last_error", optional(lastError)),
            ("method", optional(operation?.method)),
            ("url", optional(operation?.url)),
            ("key", optional(operation?.key)),
            ("enqueued_at", .string(Timestamp.formatRFC3339(orderMicroseconds / 1_000_000))),
            ("age_seconds", .number(String(age(nowSeconds: nowSeconds)))),
            ("reason", optional(reasonLine)),
            ("size", .number(String(size))),
            ("dropped_by", optional(producerName)),
            ("dropped_by_uid", producer.map { .number(String($0)) } ?? .null),
        ]
        if let payload = operation?.payload { members.append(("payload_bytes", .number(String(payload.length)))) }
        if let waitsFor { members.append(("waits_for", .string(waitsFor))) }
        if let handler = operation?.handler {
            members.append(("handler", .string(handler)))
            members.append(("args", .array(operation!.arguments.map(JSON.string))))
        }
        if let claim {
            members.append(("claimed_by", .string("\(claim.owner.host),\(claim.owner.pid)")))
            members.append(("claimed_at", .string(Timestamp.formatRFC3339(claim.since))))
        }
        if full {
            members.append(("why", .object(reason.fields.map { (key: $0.0, value: JSON.string($0.1)) })))
            members.append(("document", operation?.document ?? .null))
        }
        return .object(members)
    }
}
