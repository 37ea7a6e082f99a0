import Glibc
import SpoolDocument
import SpoolNames
import SpoolSystem

/// What a sender learned about one origin, kept in the spool's `.origins` for the next run (a cron run
/// starts where the last one left off, and a paused origin stays paused) and for `spool-ctl stats`.
///
/// One line per origin: the origin, then `name=value` fields. Read leniently and bounded: the file is the
/// sender's own, but lives where producers write, so a line that does not parse is skipped and a pause is
/// never taken longer than a day. In a spool many users drop into, each producer's writes to an origin are a
/// share of it with a window, rate and pause of their own (`producer=UID`): what one producer's writes draw
/// from the server holds back theirs, not the others'.
package struct OriginRecord: Sendable, Equatable {
    /// The origin, as `Operation.origin` writes it.
    package var origin: String
    /// The producer whose share of the origin this is; nil for the owner's and root's writes.
    package var producer: UInt32?
    /// Its window at the end of the run, and the most it may reach.
    package var window = 1, maximum = 1
    /// The window when it last pushed back (0 for never).
    package var ceiling = 0.0
    /// Pushbacks, 429s and pauses, counted across runs.
    package var pushbacks = 0, tooManyRequests = 0, pauses = 0
    /// What became of the operations sent to it, counted across runs.
    package var deliveries = DeliveryCounts()
    /// Until when it asked not to be sent anything (epoch seconds; 0 for no pause).
    package var pausedUntil: Int64 = 0
    /// What holds the origin back until `pausedUntil`: `retry-after` (the server's `Retry-After`), `quota` (a
    /// used-up quota in the rate-limit headers), `rate` (spool's learned rate), `unreachable` or `unavailable`
    /// (down: probed again on a backoff); empty when there is none or it is unknown.
    package var pausedBy = ""
    /// Probes in a row that found it down, across runs: the exponent of its backoff (0 while it is up).
    package var failedProbes = 0
    /// The end of the first pause said at the default level since it last accepted a request (epoch seconds;
    /// 0 for none): the pauses of one episode are said once, not in every cron run they last.
    package var announcedUntil: Int64 = 0
    /// Since when it could not be reached (a refused, unresolved or timed-out connection) and has not answered
    /// since (epoch seconds; 0 while it answers): said once when it begins, once when it ends.
    package var unreachableSince: Int64 = 0
    /// The rate it announced, requests per second (0 for none).
    package var announcedRate = 0.0
    /// The rate learned from its 429s and 503s at the end of the run, and the limit last measured, requests per
    /// second (0 for none); when it was last cut (epoch seconds) and how many cuts taught it.
    package var learnedRate = 0.0, learnedLimit = 0.0
    /// When the rate was last cut (epoch seconds; 0 for never), and how many cuts taught it.
    package var learnedAt: Int64 = 0, learnedCuts = 0
    /// When the record was written (epoch seconds): a window older than an hour is not trusted.
    package var updated: Int64 = 0

    /// The file, in the spool root.
    package static let fileName = FileName(".origins")
    /// The largest count kept: a hostile file cannot make a count overflow.
    package static let largestCount = 1 << 40

    /// How long a learned rate is kept without news (a day): older, the origin is unknown again.
    package static let learnedRateLifetimeSeconds: Int64 = 86400

    /// How long a learned window is kept for the next run.
    package static let windowLifetimeSeconds: Int64 = 3600

    /// A record of `origin` (of `producer`'s share of it) with nothing learned yet.
    package init(origin: String, producer: UInt32? = nil) {
        self.origin = origin
        self.producer = producer
    }

    /// The key of `producer`'s share of `origin`: the origin itself for the owner's and root's writes, else
    /// the origin, a space (which no origin holds) and the producer's uid.
    package static func share(_ origin: String, producer: UInt32?) -> String {
        producer.map { "\(origin) \($0)" } ?? origin
    }

    /// The origin of a share's key.
    package static func origin(ofShare share: String) -> Substring {
        share.firstIndex(of: " ").map { share[..<$0] } ?? share[...]
    }

    /// The producer of a share's key; nil for the origin's own share.
    package static func producer(ofShare share: String) -> UInt32? {
        share.firstIndex(of: " ").flatMap { RetryState.userID(share[share.index(after: $0)...].utf8) }
    }

    /// What may hold an origin back (`pausedBy`).
    package static let causes: Set = ["retry-after", "quota", "rate", "unreachable", "unavailable"]

    /// Whether a cause is the origin's instruction (`Retry-After`, a quota), rather than spool's own wait.
    package static func isInstruction(_ pausedBy: String) -> Bool { pausedBy == "retry-after" || pausedBy == "quota" }

    /// Whether a cause says the origin is down: probed again on a backoff, which `--flush` lifts.
    package static func isDown(_ pausedBy: String) -> Bool { pausedBy == "unreachable" || pausedBy == "unavailable" }

    /// What asked for a pause (`pausedBy`), as a person reads it; nil when it is not known.
    package static func pauseCause(_ pausedBy: String) -> String? {
        switch pausedBy {
        case "retry-after": "the server's Retry-After"
        case "quota": "a used-up quota"
        case "rate": "spool's learned rate"
        case "unreachable": "its origin being unreachable"
        case "unavailable": "its origin being unavailable"
        default: nil
        }
    }

    /// The share's key (`share(_:producer:)`).
    package var share: String { OriginRecord.share(origin, producer: producer) }

    /// The record's line.
    package var line: String {
        (producer.map { "\(origin) producer=\($0)" } ?? origin)
            + " window=\(window) maximum=\(maximum) ceiling=\(ceiling) pushbacks=\(pushbacks) "
            + "too-many-requests=\(tooManyRequests) "
            + "pauses=\(pauses) paused-until=\(pausedUntil) announced-rate=\(announcedRate) "
            + "learned-rate=\(learnedRate) learned-limit=\(learnedLimit) learned-at=\(learnedAt) "
            + "learned-cuts=\(learnedCuts) unreachable-since=\(unreachableSince) updated=\(updated) "
            + (pausedBy.isEmpty ? "" : "paused-by=\(pausedBy) ")
            + (failedProbes == 0 ? "" : "failed-probes=\(failedProbes) ")
            + (announcedUntil == 0 ? "" : "announced-until=\(announcedUntil) ")
            + DeliveryCounts.Kind.allCases.map { "\($0.rawValue)=\(deliveries[$0])" }.joined(separator: " ")
    }

    /// A record from its line, or nil.
    package init?(line: Substring) {
        let fields = line.split(separator: " ")
        guard let first = fields.first, (try? Operation.origin(of: String(first))) == String(first) else { return nil }
        origin = String(first)
        for field in fields.dropFirst() {
            let pair = field.split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { return nil }
            let value = String(pair[1])
            switch pair[0] {
            case "window": window = min(256, max(1, Int(value) ?? 1))
            case "maximum": maximum = min(256, max(1, Int(value) ?? 1))
            case "ceiling": ceiling = Double(value).map { $0.isFinite ? min(256, max(0, $0)) : 0 } ?? 0
            case "pushbacks": pushbacks = OriginRecord.count(value)
            case "too-many-requests": tooManyRequests = OriginRecord.count(value)
            case "pauses": pauses = OriginRecord.count(value)
            case "paused-until": pausedUntil = min(max(0, Int64(value) ?? 0), Int64(1) << 40)
            case "announced-rate": announcedRate = OriginRecord.rate(value)
            case "learned-rate": learnedRate = OriginRecord.rate(value)
            case "learned-limit": learnedLimit = OriginRecord.rate(value)
            case "learned-at": learnedAt = min(max(0, Int64(value) ?? 0), Int64(1) << 40)
            case "learned-cuts": learnedCuts = OriginRecord.count(value)
            case "updated": updated = min(max(0, Int64(value) ?? 0), Int64(1) << 40)
            case "unreachable-since": unreachableSince = min(max(0, Int64(value) ?? 0), Int64(1) << 40)
            case "paused-by": pausedBy = OriginRecord.causes.contains(value) ? value : ""
            case "failed-probes": failedProbes = min(OriginRecord.count(value), 64)
            case "announced-until": announcedUntil = min(max(0, Int64(value) ?? 0), Int64(1) << 40)
            case "producer": producer = RetryState.userID(value.utf8)
            case let name:
                guard let kind = DeliveryCounts.Kind(rawValue: String(name)) else { continue }
                deliveries[kind] = OriginRecord.count(value)
            }
        }
    }

    /// Forgets the pause and what was learned of the origin's pace (`spool-ctl flush --origin`): the next run
    /// starts from spool.conf's settings, its window in slow start again, its counts kept.
    package mutating func forgetPace() {
        (pausedUntil, pausedBy, failedProbes, announcedUntil) = (0, "", 0, 0)
        (learnedRate, learnedLimit, learnedAt, learnedCuts) = (0, 0, 0, 0)
        ceiling = 0
    }

    /// A rate as it is shown, in logs and statistics: two decimals below 10 a second, whole numbers above.
    package static func format(rate: Double) -> String {
        rate >= 10 ? "\(Int(rate.rounded()))" : "\(Double(Int((rate * 100).rounded())) / 100)"
    }

    /// A rate from its text, between 0 and a million a second (0 for none or nonsense).
    package static func rate(_ text: String) -> Double {
        Double(text).map { $0.isFinite ? min(max(0, $0), 1e6) : 0 } ?? 0
    }

    /// A count from its text, between 0 and `largestCount`.
    package static func count(_ text: String) -> Int { min(max(0, Int(text) ?? 0), largestCount) }

    /// The records in `spool`, at most 4096 lines of 64 KiB in all; none when the file is missing or bad.
    package static func read(_ spool: Spool) -> [OriginRecord] {
        guard let bytes = spool.readHint(fileName, limit: 64 * 1024) else { return [] }
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").prefix(4096).compactMap(
            OriginRecord.init(line:))
    }

    /// Replaces the records in `spool`: losing them in a crash costs only what was learned.
    package static func write(_ records: [OriginRecord], to spool: Spool) {
        spool.writeHint(fileName, records.sorted { $0.share < $1.share }.map { $0.line + "\n" }.joined())
    }
}

/// Totals per origin of what became of each attempt, for Prometheus counters: an alert can say "deliveries
/// to X stopped" from their rates.
package struct DeliveryCounts: Sendable, Equatable {
    /// What one attempt came to.
    package enum Kind: String, CaseIterable, Sendable {
        /// Done: the server took the write.
        case delivered
        /// Filed in `failed/` (rejected, out of attempts or time).
        case failed
        /// Filed in `conflict/`.
        case conflicted
        /// Deferred: back to `new/` for a later attempt.
        case deferred
        /// An attempt of an operation tried before, whatever it came to.
        case retried
    }

    /// The count of each kind, in `Kind.allCases` order.
    package var counts: [Int] = Array(repeating: 0, count: Kind.allCases.count)

    /// Nothing counted yet.
    package init() {}

    /// The count of one kind, at most `OriginRecord.largestCount`.
    package subscript(_ kind: Kind) -> Int {
        get { counts[Kind.allCases.firstIndex(of: kind)!] }
        set { counts[Kind.allCases.firstIndex(of: kind)!] = min(max(0, newValue), OriginRecord.largestCount) }
    }
}
