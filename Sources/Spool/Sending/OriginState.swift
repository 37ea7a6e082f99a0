import SpoolConfiguration
import SpoolDocument
import SpoolHandlers
import SpoolNames
import SpoolQueue
import SpoolSystem
import SpoolTransport

/// Everything spool knows of one origin (or one producer's share of it), with its rules, decided without
/// I/O: a window of requests at once that grows while the origin answers and halves when it pushes back
/// (Postfix's per-destination concurrency with slow start, TCP's AIMD), its pace, a token bucket for a request
/// rate (configured, announced or learned: `OriginPacer`), a pause the origin asked for, and whether it is
/// down (unreachable or unavailable) with its probes' backoff. `OriginLimits` keeps one per origin for the
/// lanes, under one lock; `record` is what `.origins` keeps of it for the next run (`OriginRecord`).
package struct OriginState: Sendable, Equatable {
    /// What one answer says about the origin's load.
    package enum Signal: Sendable, Equatable {
        /// It answered (2xx, 3xx, a 4xx other than 429): the window grows.
        case answered
        /// It pushed back (429, 503, a timeout, a refused or lost connection): the window halves.
        case pushedBack
        /// Neither (another 5xx, a TLS or DNS error): the window stays.
        case neutral
    }

    /// Whether a request may go now.
    package enum Admission: Sendable, Equatable {
        /// Yes; hand the ticket back to `finish`.
        case go(ticket: Int)
        /// The window is full: wait for a request to the origin to finish.
        case full
        /// The rate allows the next request after this many seconds.
        case wait(seconds: Double)
        /// The origin asked for a pause until this time (seconds since the epoch).
        case paused(until: Double)
    }

    /// The longest a lane waits for the rate's next request; longer, and the origin counts as paused.
    package static let longestWaitSeconds = 5.0

    /// The window a new origin starts with unless spool.conf(5) says otherwise (Postfix starts at 5).
    package static let initialWindow = 4
    /// The growth per answer near the last window that was pushed back (probing): a new 429 at most once
    /// every `1 / probeGrowth` windows' worth of answers.
    package static let probeGrowth = 0.1

    /// The window never grows beyond this (`max-concurrency`, else `--concurrency`).
    package private(set) var maximum: Int
    /// Requests allowed at once now, between 1 and `maximum`; its whole part is what counts.
    package private(set) var window: Double
    /// Requests on their way now.
    package private(set) var inFlight = 0
    /// The window when the origin last pushed back; nil until it has (slow start until then).
    package private(set) var ceiling: Double?
    /// Until when the origin asked not to be sent anything (seconds since the epoch; 0 for no pause).
    package private(set) var pausedUntil = 0.0
    /// Since when the origin could not be reached, across runs, until it answers (epoch seconds; 0 while it
    /// answers).
    package var unreachableSince: Int64 = 0
    /// What asked for the pause (`OriginRecord.pausedBy`; empty when unknown).
    package private(set) var pauseCause = ""
    /// Probes in a row that found the origin down (unreachable, or unavailable), across runs: its backoff.
    package private(set) var failedProbes = 0
    /// The last ticket issued when the origin was found down: answers to requests sent before do not count.
    package var lastDownTicket = 0
    /// The end of the first pause said at the default level since the origin last accepted a request (epoch
    /// seconds; 0 for none), across runs: the pauses of one episode are said once.
    package var announcedUntil: Int64 = 0
    /// The rate the administrator allows (`rate`), requests per second.
    package private(set) var configuredRate: Double?
    /// The rate the origin announced (`RateLimit-Policy`), requests per second.
    package private(set) var announcedRate: Double?
    /// The rate learned from the origin's 429s and 503s.
    package private(set) var pacer = OriginPacer()
    /// Requests that may go at once before the rate spaces them.
    package private(set) var burst: Double
    /// Pushbacks, 429s and pauses seen, for `spool-ctl stats`.
    package private(set) var pushbacks = 0, tooManyRequests = 0, pauses = 0
    /// What became of the operations sent, for `spool-ctl stats --prometheus`.
    package var deliveries = DeliveryCounts()

    /// The token bucket: requests the rate allows now, at most `burst`.
    package var tokens: Double
    /// When the bucket was last refilled (seconds, as `admit` is given them); nil before the first paced request.
    package var refilledAt: Double?
    /// The last ticket issued: how many requests were admitted.
    package var started = 0
    /// The last ticket issued when the window was cut: push-backs to requests up to it do not cut again.
    package var lastCut = 0

    /// A new origin's window, from `initial` up to `maximum` at once, and `rate` per second with `burst`.
    package init(maximum: Int, initial: Int? = nil, rate: Double? = nil, burst: Int? = nil) {
        self.maximum = max(1, maximum)
        window = Double(min(self.maximum, max(1, initial ?? OriginState.initialWindow)))
        configuredRate = rate
        self.burst = Double(max(1, burst ?? 1))
        tokens = self.burst
    }

    /// The administrator's limits changed (a watcher read spool.conf again): what the origin taught is kept,
    /// the window only brought under the new maximum; a pause that only spaced requests by the old rate ends,
    /// and the next request is spaced by the new one.
    package mutating func reconfigure(maximum: Int, rate: Double?, burst: Int?) {
        self.maximum = max(1, maximum)
        window = min(window, Double(self.maximum))
        configuredRate = rate
        self.burst = Double(max(1, burst ?? 1))
        tokens = min(tokens, self.burst)
        if pauseCause == "rate" { liftPause() }
    }

    /// The rate that applies: the lowest of the administrator's (a ceiling learning never exceeds), the
    /// origin's announced one and the learned one.
    package var rate: Double? {
        // Without an array: this is read for every request admitted.
        func lower(_ one: Double?, _ other: Double?) -> Double? {
            guard let one else { return other }
            return min(one, other ?? one)
        }
        return lower(lower(configuredRate, announcedRate), pacer.rate)
    }

    /// Whether a request may go at `nowSeconds`, and if so counts it as on its way.
    package mutating func admit(nowSeconds: Double) -> Admission {
        if nowSeconds < pausedUntil { return .paused(until: pausedUntil) }
        if inFlight >= Int(window) { return .full }
        pacer.forgetIfOld(nowSeconds: nowSeconds)
        if let rate {
            tokens = min(burst, tokens + max(0, nowSeconds - (refilledAt ?? nowSeconds)) * rate)
            refilledAt = nowSeconds
            // A microsecond's worth of slack: clock readings are not exact multiples of the spacing.
            if tokens < 1 - 1e-6 * rate {
                let seconds = (1 - tokens) / rate
                // A long wait is a pause: the lane leaves rather than hold its place for it.
                guard seconds > OriginState.longestWaitSeconds else { return .wait(seconds: seconds) }
                // Kept as a pause, so that the next run leaves the origin's writes by their names.
                pause(until: nowSeconds + seconds, nowSeconds: nowSeconds, cause: "rate")
                return .paused(until: nowSeconds + seconds)
            }
            tokens = max(0, tokens - 1)
        }
        inFlight += 1
        started += 1
        return .go(ticket: started)
    }

    /// Counts the request of `ticket` as finished with `signal`; returns whether the window's whole part
    /// changed (worth a line with `-v`).
    package mutating func finish(ticket: Int, _ signal: Signal) -> Bool {
        inFlight = max(0, inFlight - 1)
        let before = Int(window)
        switch signal {
        case .answered:
            if let ceiling {
                window += window + 1 < ceiling ? 1 / window : OriginState.probeGrowth / window
            } else {
                window += 1
            }
            window = min(window, Double(maximum))
        case .pushedBack:
            pushbacks = min(pushbacks + 1, OriginRecord.largestCount)
            // Requests already on their way when the window was cut tell nothing new: one cut per round.
            if ticket > lastCut {
                ceiling = window
                window = max(1, window / 2)
                lastCut = started
            }
        case .neutral:
            break
        }
        return Int(window) != before
    }

    /// What an answer teaches an origin's pace.
    package enum Lesson: Sendable, Equatable {
        /// Nothing new: accepted, or a push-back to a request sent before the last cut.
        case nothing
        /// A push-back soon after accepted answers: the learned rate was cut.
        case cut
        /// A push-back while the origin accepts nothing: it is unavailable, and no rate is learned.
        case unavailable
    }

    /// What an answer of `status` to the request of `ticket` teaches the learned rate: a 429 or 503 soon
    /// after accepted answers cuts it (a mix is evidence of a rate), one while the origin accepts nothing says
    /// it is unavailable; another answer below 500 was accepted, and the origin is up.
    package mutating func pace(status: Int, ticket: Int, nowSeconds: Double) -> Lesson {
        if status == 429 || status == 503 {
            guard pacer.acceptedLately(nowSeconds: nowSeconds) else {
                return ticket > lastDownTicket ? .unavailable : .nothing
            }
            return pacer.pushedBack(nowSeconds: nowSeconds, ticket: ticket, started: started) ? .cut : .nothing
        }
        if status < 500 {
            pacer.accepted(nowSeconds: nowSeconds)
            // The episode is over: the next pause is news.
            announcedUntil = 0
        }
        return .nothing
    }

    /// Counts a 429 (for the statistics; its pushback is `finish`'s).
    package mutating func countTooManyRequests() {
        tooManyRequests = min(tooManyRequests + 1, OriginRecord.largestCount)
    }

    /// Sends nothing to the origin before `until` (seconds since the epoch), `nowSeconds` plus a day at most;
    /// `cause` is what asked for it (`OriginRecord.pausedBy`).
    package mutating func pause(until: Double, nowSeconds: Double, cause: String = "") {
        let until = min(until, nowSeconds + RateLimitHeaders.longestPauseSeconds)
        guard until.isFinite, until > pausedUntil else { return }
        pausedUntil = until
        pauseCause = cause
        // Spool's own waits (its pace, a down origin's backoff) are not the origin's pauses.
        if cause != "rate", !OriginRecord.isDown(cause) { pauses = min(pauses + 1, OriginRecord.largestCount) }
    }

    /// The origin accepted a request: it is up, and a backoff it was waiting out is over.
    package mutating func up() {
        unreachableSince = 0
        failedProbes = 0
        if OriginRecord.isDown(pauseCause) { liftPause() }
    }

    /// Lifts the pause (a down origin's backoff under `--flush`).
    package mutating func liftPause() { (pausedUntil, pauseCause) = (0, "") }

    /// The origin was found down at `nowSeconds` (`cause`: `unreachable` or `unavailable`): it is probed again
    /// after `backoff`'s delay for one more probe in a row, and down since now unless it was already.
    /// Returns until when it waits.
    package mutating func down(
        nowSeconds: Double, cause: String, backoff: Backoff, random: Double = Double.random(in: 0...1)
    ) -> Double {
        lastDownTicket = started
        failedProbes = min(failedProbes + 1, 64)
        if unreachableSince == 0 { unreachableSince = Int64(nowSeconds) }
        let until = nowSeconds + Double(backoff.delay(afterAttempts: failedProbes, random: random))
        pause(until: until, nowSeconds: nowSeconds, cause: cause)
        return pausedUntil
    }

    /// The lowest rate taken from an origin: one request a day. A lower one would starve it for good.
    package static let lowestRate = 1.0 / 86400

    /// The origin's own announced rate, requests per second.
    package mutating func announce(rate: Double) {
        guard rate.isFinite, rate > 0 else { return }
        announcedRate = max(rate, OriginState.lowestRate)
    }

    /// What this window has learned, to keep for the next run.
    package func record(_ origin: String, nowSeconds: Int64) -> OriginRecord {
        var record = OriginRecord(origin: origin)
        record.window = Int(window)
        record.maximum = maximum
        record.ceiling = ceiling ?? 0
        (record.pushbacks, record.tooManyRequests, record.pauses) = (pushbacks, tooManyRequests, pauses)
        record.deliveries = deliveries
        record.pausedUntil =
            pausedUntil > Double(nowSeconds)
            ? Int64(min(pausedUntil, Double(nowSeconds) + RateLimitHeaders.longestPauseSeconds).rounded(.up)) : 0
        record.announcedRate = announcedRate ?? 0
        record.unreachableSince = unreachableSince
        (record.failedProbes, record.announcedUntil) = (failedProbes, announcedUntil)
        // A down origin keeps its cause after its backoff: whether it is unreachable or unavailable.
        if record.pausedUntil > 0 || unreachableSince > 0 && OriginRecord.isDown(pauseCause) {
            record.pausedBy = pauseCause
        }
        if pacer.rate != nil {
            (record.learnedRate, record.learnedLimit) = (pacer.rate ?? 0, pacer.limit)
            (record.learnedAt, record.learnedCuts) = (Int64(pacer.learnedAt), pacer.cuts)
        }
        record.updated = nowSeconds
        return record
    }

    /// Starts from what the last run learned: its counts and pause always (a pause at most a day from now),
    /// its learned rate if learned within the day, its window only if learned within the hour, and never
    /// above this run's maximum.
    package mutating func restore(_ record: OriginRecord, nowSeconds: Double) {
        (pushbacks, tooManyRequests, pauses) = (record.pushbacks, record.tooManyRequests, record.pauses)
        deliveries = record.deliveries
        pausedUntil = min(Double(record.pausedUntil), nowSeconds + RateLimitHeaders.longestPauseSeconds)
        unreachableSince = record.unreachableSince
        pauseCause = record.pausedBy
        (failedProbes, announcedUntil) = (record.failedProbes, record.announcedUntil)
        // A learned rate is kept for a day (OriginPacer.memorySeconds), however old the window.
        pacer.restore(
            limit: record.learnedLimit, cutAt: Double(record.learnedAt), cuts: record.learnedCuts,
            nowSeconds: nowSeconds)
        guard nowSeconds - Double(record.updated) < Double(OriginRecord.windowLifetimeSeconds) else { return }
        // A rate the origin announced an hour ago or less; an older one may have changed since.
        if record.announcedRate > 0 { announce(rate: record.announcedRate) }
        window = Double(min(maximum, max(1, record.window)))
        if record.ceiling > 0 { ceiling = record.ceiling }
    }
}
