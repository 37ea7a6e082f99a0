import SpoolConfiguration
import SpoolDocument
import SpoolHandlers
import SpoolNames
import SpoolQueue
import SpoolSystem
import SpoolTransport

/// Counts and ages of a spool, read from file names and sizes only (cheap enough for a cron line).
package struct SpoolStats: Sendable {
    /// Operations per folder (reasons not counted).
    package var counts: [Spool.Folder: Int] = [:]
    /// Operations in `new/` waiting for a retry time.
    package var deferred = 0
    /// Operations in `new/` on hold (`spool-ctl hold`).
    package var held = 0
    /// Age in seconds of the oldest operation in `new/` or `cur/`.
    package var oldestPendingAgeSeconds: Int64?
    /// Earliest retry time in `new/`, epoch seconds.
    package var nextDue: Int64?
    /// Bytes of all files in the spool's folders.
    package var bytes = 0
    /// What the last sender learned about each origin (`.origins`).
    package var origins: [OriginRecord] = []

    /// Reads the statistics of `spool` at `nowSeconds`.
    package init(spool: Spool, nowSeconds: Int64 = Timestamp.nowSeconds()) throws {
        for folder in Spool.Folder.allCases {
            let directory = spool.directory(folder)
            var count = 0
            try spool.forEachEntry(in: folder) { fileName, _ in
                guard !fileName.isHidden else { return }
                bytes += (try? directory.status(of: fileName).size) ?? 0
                if (folder == .failed || folder == .conflict) && fileName.string?.hasSuffix(".why") == true { return }
                count += 1
                guard folder == .new || folder == .cur else { return }
                let state = QueueName(fileName)?.state
                let order = state?.orderMicroseconds ?? (try? directory.status(of: fileName).modifiedMicroseconds) ?? 0
                let age = max(0, nowSeconds - order / 1_000_000)
                oldestPendingAgeSeconds = max(oldestPendingAgeSeconds ?? 0, age)
                if folder == .new, state?.held == true { held += 1 }
                if folder == .new, let due = state?.dueSeconds, due > nowSeconds {
                    deferred += 1
                    nextDue = min(nextDue ?? due, due)
                }
            }
            counts[folder] = count
        }
        origins = OriginRecord.read(spool).sorted { $0.share < $1.share }
        self.nowSeconds = nowSeconds
    }

    /// When the statistics were read.
    package var nowSeconds: Int64 = 0

    /// Folders reported, in order.
    package static let reported: [Spool.Folder] = [.new, .cur, .failed, .conflict, .tmp]

    /// Lines for a person.
    package var text: String {
        var out = ""
        for folder in SpoolStats.reported {
            out += "\(folder.rawValue.padding(10))\(counts[folder] ?? 0)"
            let notes = [(deferred, "deferred"), (held, "held")].filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }
            if folder == .new, !notes.isEmpty { out += " (\(notes.joined(separator: ", ")))" }
            out += "\n"
        }
        out += "oldest    " + (oldestPendingAgeSeconds.map { "\(humanDuration($0)) pending" } ?? "-") + "\n"
        out += "next due  " + (nextDue.map { Timestamp.formatRFC3339($0) } ?? "-") + "\n"
        out += "bytes     \(bytes)\n"
        for record in origins {
            out +=
                "origin    \(record.origin)"
                    + (record.producer.map { " (producer \(UserDatabase.name(of: $0) ?? String($0)))" } ?? "")
                    + ": window \(record.window) of \(record.maximum), "
                    + (learned(record).map {
                        "rate \(OriginRecord.format(rate: $0.rate))/s learned (\($0.cuts) cuts), "
                    } ?? "")
                    + "\(record.tooManyRequests) answers 429, "
                + "\(record.pushbacks) pushbacks, \(record.pauses) pauses; "
                + DeliveryCounts.Kind.allCases.map { "\(record.deliveries[$0]) \($0.rawValue)" }.joined(separator: ", ")
            if record.unreachableSince > 0 {
                out += ", \(SpoolStats.state(record)) since \(Timestamp.formatRFC3339(record.unreachableSince))"
                    + (record.pausedUntil > nowSeconds
                        ? ", probed again at \(Timestamp.formatRFC3339(record.pausedUntil))" : "")
                    + " (\(record.failedProbes) failed probes)"
            } else if record.pausedUntil > nowSeconds {
                out += ", paused until \(Timestamp.formatRFC3339(record.pausedUntil))"
                    + (OriginRecord.pauseCause(record.pausedBy).map { " (\($0))" } ?? "")
            }
            out += "\n"
        }
        return out
    }

    /// An origin's state: `up`, or down as `unreachable` (no connection) or `unavailable` (it accepted nothing).
    static func state(_ record: OriginRecord) -> String {
        guard record.unreachableSince > 0 else { return "up" }
        return record.pausedBy == "unavailable" ? "unavailable" : "unreachable"
    }

    /// The rate learned for an origin and the cuts that taught it, while it is kept (a day after its last cut).
    /// The rate shown is the limit measured at the last push-back, which the next run starts from: the
    /// pacer's rate at the end of a run is only where its probe stood, above the limit or below it.
    func learned(_ record: OriginRecord) -> (rate: Double, cuts: Int)? {
        guard record.learnedLimit > 0, nowSeconds - record.learnedAt <= OriginRecord.learnedRateLifetimeSeconds
        else { return nil }
        return (record.learnedLimit, record.learnedCuts)
    }

    /// One JSON object.
    package var json: JSON {
        var members: [(key: String, value: JSON)] = SpoolStats.reported.map {
            ($0.rawValue, .number(String(counts[$0] ?? 0)))
        }
        members.append(("deferred", .number(String(deferred))))
        members.append(("held", .number(String(held))))
        members.append(("oldest_pending_age_seconds", oldestPendingAgeSeconds.map { .number(String($0)) } ?? .null))
        members.append(("next_due", nextDue.map { .string(Timestamp.formatRFC3339($0)) } ?? .null))
        members.append(("bytes", .number(String(bytes))))
        members.append(
            (
                "origins",
                .array(
                    origins.map { record in
                        .object([
                            ("origin", .string(record.origin)),
                            ("producer_uid", record.producer.map { .number(String($0)) } ?? .null),
                            ("window", .number(String(record.window))),
                            ("max_window", .number(String(record.maximum))),
                            (
                                "learned_rate",
                                learned(record).map { .number(OriginRecord.format(rate: $0.rate)) } ?? .null
                            ),
                            ("learned_cuts", .number(String(learned(record)?.cuts ?? 0))),
                            ("too_many_requests", .number(String(record.tooManyRequests))),
                            ("pushbacks", .number(String(record.pushbacks))),
                            ("pauses", .number(String(record.pauses))),
                            (
                                "deliveries",
                                .object(
                                    DeliveryCounts.Kind.allCases.map {
                                        (key: $0.rawValue, value: JSON.number(String(record.deliveries[$0])))
                                    })
                            ),
                            (
                                "paused_until",
                                record.pausedUntil > nowSeconds
                                    ? .string(Timestamp.formatRFC3339(record.pausedUntil)) : .null
                            ),
                            ("paused_by", record.pausedUntil > nowSeconds && !record.pausedBy.isEmpty
                                ? .string(record.pausedBy) : .null),
                            ("unreachable_since", record.unreachableSince > 0
                                ? .string(Timestamp.formatRFC3339(record.unreachableSince)) : .null),
                            ("state", .string(SpoolStats.state(record))),
                            ("failed_probes", .number(String(record.failedProbes))),
                        ])
                    })
            ))
        return .object(members)
    }

    /// The node_exporter textfile format.
    package func prometheus(spool: String) -> String {
        let label = "spool=\(JSON.string(spool).text)"
        var out = "# HELP spool_operations Operations in the spool, by folder.\n# TYPE spool_operations gauge\n"
        for folder in SpoolStats.reported {
            out += "spool_operations{\(label),folder=\"\(folder.rawValue)\"} \(counts[folder] ?? 0)\n"
        }
        out +=
            "# HELP spool_deferred_operations Operations in new/ waiting for their retry time.\n# TYPE "
                + "spool_deferred_operations gauge\n"
        out += "spool_deferred_operations{\(label)} \(deferred)\n"
        out +=
            "# HELP spool_held_operations Operations in new/ on hold (spool-ctl hold).\n# TYPE spool_held_operations "
                + "gauge\n"
        out += "spool_held_operations{\(label)} \(held)\n"
        out +=
            "# HELP spool_oldest_pending_age_seconds Age of the oldest operation not yet delivered.\n# TYPE "
                + "spool_oldest_pending_age_seconds gauge\n"
        out += "spool_oldest_pending_age_seconds{\(label)} \(oldestPendingAgeSeconds ?? 0)\n"
        if let nextDue {
            out +=
                "# HELP spool_next_due_timestamp_seconds When the earliest deferred operation is due.\n# TYPE "
                    + "spool_next_due_timestamp_seconds gauge\n"
            out += "spool_next_due_timestamp_seconds{\(label)} \(nextDue)\n"
        }
        out += "# HELP spool_bytes Bytes of the files in the spool.\n# TYPE spool_bytes gauge\n"
        out += "spool_bytes{\(label)} \(bytes)\n"
        guard !origins.isEmpty else { return out }
        let metrics: [(String, String, String, (OriginRecord) -> String)] = [
            (
                "spool_origin_window", "gauge", "Requests an origin may have in flight at once, as last learned.",
                { "\($0.window)" }
            ),
            ("spool_origin_window_max", "gauge", "The most an origin's window may grow to.", { "\($0.maximum)" }),
            (
                "spool_origin_learned_rate", "gauge",
                "Requests per second an origin is sent, as learned from its 429s and 503s (0: not paced).",
                { self.learned($0).map { OriginRecord.format(rate: $0.rate) } ?? "0" }
            ),
            (
                "spool_origin_too_many_requests_total", "counter", "Answers 429 from an origin.",
                { "\($0.tooManyRequests)" }
            ),
            (
                "spool_origin_pushbacks_total", "counter",
                "Answers that halved an origin's window (429, 503, timeouts, lost connections).", { "\($0.pushbacks)" }
            ),
            (
                "spool_origin_pauses_total", "counter", "Pauses an origin asked for (Retry-After, a used-up quota).",
                { "\($0.pauses)" }
            ),
            (
                "spool_origin_delivered_total", "counter", "Operations an origin took (2xx; 404 or 410 to a DELETE).",
                { "\($0.deliveries[.delivered])" }
            ),
            (
                "spool_origin_failed_total", "counter", "Operations to an origin filed in failed/ after an attempt.",
                { "\($0.deliveries[.failed])" }
            ),
            (
                "spool_origin_conflicted_total", "counter", "Operations to an origin filed in conflict/ (409, 412).",
                { "\($0.deliveries[.conflicted])" }
            ),
            (
                "spool_origin_deferred_total", "counter",
                "Attempts to an origin that ended in a deferral (a later retry).", { "\($0.deliveries[.deferred])" }
            ),
            (
                "spool_origin_retried_total", "counter", "Attempts to an origin of operations tried before.",
                { "\($0.deliveries[.retried])" }
            ),
            (
                "spool_origin_paused_until_timestamp_seconds", "gauge",
                "Until when an origin is sent nothing: its pause, or its next probe while down (0 for none).",
                { "\($0.pausedUntil > nowSeconds ? $0.pausedUntil : 0)" }
            ),
            (
                "spool_origin_up", "gauge", "Whether an origin accepts writes (0 while unreachable or unavailable).",
                { $0.unreachableSince > 0 ? "0" : "1" }
            )
        ]
        for (name, type, help, value) in metrics {
            out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
            for record in origins {
                let producer = record.producer.map { ",producer_uid=\"\($0)\"" } ?? ""
                out += "\(name){\(label),origin=\(JSON.string(record.origin).text)\(producer)} \(value(record))\n"
            }
        }
        return out
    }
}

extension String {
    /// The string padded on the right with spaces to `width`.
    package func padding(_ width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}
