import Glibc
import SpoolQueue

/// The sending rate spool learns for one origin from its 429s, decided without I/O. A rate limiter that
/// answers the excess at once cannot be found by a concurrency window (one lane at 1 ms is 1,000 requests a
/// second), so each origin also has a rate, unknown (not paced) until the origin pushes back:
///
/// - **Measured, not guessed**: a push-back cuts the rate to `cutFactor` of what the origin *accepted* over
///   the last half second, which is its limit whenever spool sends faster than the limit.
/// - **Slow start**: until the first cut made on a full measurement, the rate doubles every half second, so
///   a first estimate taken from the opening burst (too short to say much) is corrected in a second or two.
/// - **Then CUBIC's curve** (RFC 9438), in time rather than in round trips: back to the measured limit in
///   `recoverySeconds`, a plateau there, then a probe that grows ever faster, so that a limit that was raised
///   is found again within seconds, while near a steady limit one push-back comes every few seconds.
/// - **Bounded by demand**: it never grows beyond twice what the origin accepted lately (or the limit
///   learned), so an idle hour does not turn into a burst.
/// - **One cut per round**: answers to requests sent before a cut tell nothing new (as for the window).
package struct OriginPacer: Sendable, Equatable {
    /// The learned rate, requests per second; nil while the origin never pushed back (not paced).
    package private(set) var rate: Double?
    /// The rate the origin accepted when it last pushed back: its limit as last measured (0 for none).
    package private(set) var limit = 0.0
    /// Where CUBIC's curve starts: the last cut, or the start of the run that restored the rate (seconds since
    /// the epoch; 0 for never).
    package private(set) var cutAt = 0.0
    /// When the origin last pushed back and cut the rate, across runs: the evidence for the rate, from which
    /// it is forgotten (seconds since the epoch; 0 for never).
    package private(set) var learnedAt = 0.0
    /// How sure: the cuts that taught the rate, across runs.
    package private(set) var cuts = 0
    /// Still doubling: no cut has yet been made on a full measurement.
    package private(set) var slowStart = true

    /// When recent answers were accepted, oldest first, from `acceptedStart` on (those before it are old and
    /// dropped in bulk, so that each answer costs O(1)): within `measureSeconds`, at most `keptAnswers`.
    package var accepted: [Double] = []
    /// The index in `accepted` of the first answer still counted.
    package var acceptedStart = 0
    /// When the first answer was seen, for a measurement shorter than `measureSeconds`.
    package var firstAnswerAt: Double?
    /// When the origin last accepted a request in this run (nil before the first): a push-back is evidence
    /// of a rate only soon after an accepted answer.
    package var lastAcceptedAt: Double?
    /// When the rate last grew, was cut or was restored; nil while the origin is not paced.
    package var grownAt: Double?
    /// The last ticket issued when the rate was cut: push-backs to requests up to it do not cut again.
    package var lastCutTicket = 0

    /// What is kept of a rate after a push-back, times the accepted rate (CUBIC's β is 0.7; a rate limiter
    /// that drops the excess needs less margin than a queue).
    package static let cutFactor = 0.85
    /// The span over which the accepted rate is measured.
    package static let measureSeconds = 0.5
    /// The shortest span a measurement is divided by: a burst of the opening moments is not a rate.
    package static let shortestMeasureSeconds = 0.25
    /// Seconds after a cut in which the rate climbs back to the measured limit.
    package static let recoverySeconds = 2.0
    /// The lowest rate learned: one request a minute, so that an origin answering only 503 is still tried.
    package static let lowestRate = 1.0 / 60
    /// How long a learned rate is kept without news: a day.
    package static let memorySeconds = Double(OriginRecord.learnedRateLifetimeSeconds)
    /// The most answers kept in `accepted`: memory stays bounded at any rate.
    package static let keptAnswers = 4096

    /// An origin with nothing learned yet.
    package init() {}

    /// The origin accepted a request at `nowSeconds`: measured, and the rate grows.
    package mutating func accepted(nowSeconds: Double) {
        if firstAnswerAt == nil { firstAnswerAt = nowSeconds }
        lastAcceptedAt = nowSeconds
        accepted.append(nowSeconds)
        grow(nowSeconds: nowSeconds)
    }

    /// The rate the origin accepted over the last `measureSeconds`, requests per second.
    package mutating func acceptedRate(nowSeconds: Double) -> Double {
        forgetOld(nowSeconds)
        let count = accepted.count - acceptedStart
        let span = min(OriginPacer.measureSeconds, nowSeconds - (firstAnswerAt ?? nowSeconds))
        return Double(count) / max(span, OriginPacer.shortestMeasureSeconds)
    }

    /// Whether the origin accepted a request lately: within `stretchSeconds`, or four of the rate's spacings
    /// when that is longer (a limiter at a low rate refuses a few in a row). Only then is a push-back evidence
    /// that spool sends faster than the origin accepts (a mix of accepted and refused); a push-back without
    /// one says the origin accepts nothing: it is unavailable, not slow, and teaches no rate.
    package func acceptedLately(nowSeconds: Double) -> Bool {
        guard let lastAcceptedAt else { return false }
        return nowSeconds - lastAcceptedAt <= max(OriginPacer.stretchSeconds, rate.map { 4 / $0 } ?? 0)
    }

    /// The stretch in which accepted answers and push-backs are one mix, evidence of a rate.
    package static let stretchSeconds = 10.0

    /// The origin pushed back (429, 503) on the request of `ticket`; `started` is the last ticket issued, so
    /// that the answers to requests already on their way do not cut again. Returns whether the rate was cut.
    @discardableResult
    package mutating func pushedBack(nowSeconds: Double, ticket: Int, started: Int) -> Bool {
        guard ticket > lastCutTicket else { return false }
        lastCutTicket = started
        let measured = acceptedRate(nowSeconds: nowSeconds)
        var next = measured > 0 ? measured * OriginPacer.cutFactor : (rate ?? 2) / 2
        if let rate { next = min(next, rate * OriginPacer.cutFactor) }
        next = max(next, OriginPacer.lowestRate)
        // A measurement over a full span of answers, taken while paced, ends the slow start.
        let full = nowSeconds - (firstAnswerAt ?? nowSeconds) >= OriginPacer.measureSeconds
        if rate != nil, full { slowStart = false }
        limit = max(next / OriginPacer.cutFactor, measured)
        rate = next
        cutAt = nowSeconds
        learnedAt = nowSeconds
        grownAt = nowSeconds
        cuts = min(cuts + 1, OriginRecord.largestCount)
        return true
    }

    /// The rate at `nowSeconds` after the time since the last growth: doubling in slow start, else CUBIC's
    /// curve through the measured limit, and never beyond twice the accepted rate or the limit learned.
    package mutating func grow(nowSeconds: Double) {
        guard let current = rate, let last = grownAt, nowSeconds > last else { return }
        grownAt = nowSeconds
        var next: Double
        if slowStart {
            next = current * pow(2, (nowSeconds - last) / OriginPacer.measureSeconds)
        } else {
            // W(t) = limit · (1 + (1 − β) · ((t − K) / K)³): β·limit at the cut, the limit at K, then faster.
            let t = (nowSeconds - cutAt) / OriginPacer.recoverySeconds - 1
            next = max(current, limit * (1 + (1 - OriginPacer.cutFactor) * t * t * t))
        }
        let demand = max(2 * acceptedRate(nowSeconds: nowSeconds), limit)
        rate = max(OriginPacer.lowestRate, min(next, max(current, demand)))
    }

    /// Forgets a rate whose last cut was more than `memorySeconds` ago: the origin is unknown again.
    package mutating func forgetIfOld(nowSeconds: Double) {
        guard rate != nil, nowSeconds - learnedAt > OriginPacer.memorySeconds else { return }
        self = OriginPacer()
    }

    private mutating func forgetOld(_ nowSeconds: Double) {
        let since = nowSeconds - OriginPacer.measureSeconds
        while acceptedStart < accepted.count, accepted[acceptedStart] <= since { acceptedStart += 1 }
        acceptedStart = max(acceptedStart, accepted.count - OriginPacer.keptAnswers)
        if acceptedStart >= 1024, acceptedStart * 2 >= accepted.count {
            accepted.removeFirst(acceptedStart)
            acceptedStart = 0
        }
    }

    /// Starts from what an earlier run learned (`limit` requests per second, last cut at `cutAt`, after
    /// `cuts` cuts), past slow start, where CUBIC's curve stands now in wall-clock time: a run's start does not
    /// restart it. A run soon after a cut goes on climbing from where the last one was; a later one starts at
    /// the limit, on the plateau, whose probing starts again only from there (an idle hour is no evidence that
    /// a rate limiter's limit rose). The cut keeps its time as the evidence for the rate (`learnedAt`), so that
    /// a rate is forgotten a day after its last cut however many runs came between. Nothing when it is older
    /// than `memorySeconds`.
    package mutating func restore(limit: Double, cutAt: Double, cuts: Int, nowSeconds: Double) {
        guard limit > 0, limit.isFinite, nowSeconds - cutAt <= OriginPacer.memorySeconds else { return }
        self.limit = max(limit, OriginPacer.lowestRate)
        let since = min(max(0, nowSeconds - cutAt), OriginPacer.recoverySeconds)
        // W(t) = limit · (1 + (1 − β) · ((t − K) / K)³), at most the limit here (t ≤ K).
        let t = since / OriginPacer.recoverySeconds - 1
        rate = max(self.limit * (1 + (1 - OriginPacer.cutFactor) * t * t * t), OriginPacer.lowestRate)
        self.cutAt = nowSeconds - since
        learnedAt = min(cutAt, nowSeconds)
        grownAt = nowSeconds
        self.cuts = cuts
        slowStart = false
    }
}
