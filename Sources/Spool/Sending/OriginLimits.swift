import Glibc
import SpoolConfiguration
import SpoolDocument
import SpoolHandlers
import SpoolNames
import SpoolQueue
import SpoolSystem
import SpoolTransport

/// The windows of every origin a worker sends to, shared by its lanes and kept across a watcher's runs: a
/// lane asks before each claim and reports the answer after the request. Waiting for room in a full window
/// is a suspension until a request to that origin finishes, not a spin.
///
/// Each method takes a share of an origin (`OriginRecord.share`): the origin itself, or in a spool many users
/// drop into, one producer's share of it, with a window, rate and pause of its own, so that a pause or a rate
/// one producer's writes drew holds back theirs only. The shares of one origin together keep to its
/// `max-concurrency`, and when they wait for room there, they are let in a producer at a time in turn.
package final class OriginLimits: Sendable {
    /// What a lane may do.
    package enum Grant: Equatable {
        /// Send; hand the ticket back to `finish`.
        case go(ticket: Int)
        /// The origin asked for a pause: leave its operations until then (seconds since the epoch).
        case paused(until: Double)
    }

    /// What the lanes share, under the lock.
    package struct State {
        /// Each origin's window, made at its first request and never removed.
        package var windows: [String: OriginState] = [:]
        /// The lanes waiting for room in a full window, by origin, with the share each waits for.
        package var waiters: [String: [(share: String, waiter: CheckedContinuation<Int?, Never>)]] = [:]
        /// Whether any producer's share exists: only then do shares add up under their origin's limit, and
        /// take their turns.
        package var hasShares = false
        /// When each share last had a request let go (a count of those let go), for their turns.
        package var lastServed: [String: Int] = [:]
        /// Requests let go over all shares, the clock of `lastServed`.
        package var servedCount = 0
        /// Origins that accepted again after being down, with since when and why, for the run's report.
        package var recovered: [String: (since: Int64, cause: String)] = [:]
        /// Origins found down in this run that were up before, with the end of their first backoff: news.
        package var wentDown: [String: (cause: String, until: Double)] = [:]
        /// Whether some origin known here is unreachable.
        package var anyUnreachable = false
        /// What the last run learned, read at the first request.
        package var seeds: [String: OriginRecord]?
        /// Something was learned since the last `records`.
        package var changed = false
        /// Origins that answered, or took a connection, since the run began. Until one has, its first request
        /// is a probe and no other goes beside it: a refused or unreachable origin costs one attempt per
        /// run, not a window's.
        package var answered: Set<String> = []
        /// `answered` by the hash names carry (`h=`): only their lanes are read ahead (`ReadAhead`), so that a
        /// run over a down origin's backlog still opens only the probe's document.
        package var answeredHashes: Set<UInt32> = []
    }

    /// The shared state, behind its lock.
    package let state = Locked(State())
    /// spool.conf(5) as in use: the per-origin window, rate and burst, and everything else a request takes
    /// from it; replaced when a watcher reads it again (`reconfigure`).
    let inUse: Locked<SpoolConfiguration>
    /// The most requests any origin may have at once (`--concurrency`).
    package let concurrency: Int
    /// Where changes of window and rate are told (with `-v`).
    package let log: Log
    /// Reads what earlier runs learned; called once, when first needed.
    package let seed: @Sendable () -> [OriginRecord]
    /// How long a down origin waits before its next probe, after so many in a row (`--min-backoff`, doubling
    /// up to `--max-backoff` or `longestProbeSeconds`, whichever is shorter).
    package let probeBackoff: Backoff
    /// Whether the run was asked to try everything now (`--flush`): a down origin is probed at once, though
    /// a pause the origin asked for is kept.
    package let flush: Bool

    /// The longest wait between two probes of a down origin: its recovery is noticed within ten minutes.
    package static let longestProbeSeconds: Int64 = 600

    /// Limits from spool.conf(5), with `concurrency` as the most any origin gets, starting from what `seed`
    /// returns (read once, when a plan or a first request needs it, so that an idle run never reads it).
    package init(
        configuration: SpoolConfiguration, concurrency: Int, log: Log, backoff: Backoff = Backoff(),
        flush: Bool = false, seed: @escaping @Sendable () -> [OriginRecord] = { [] }
    ) {
        inUse = Locked(configuration)
        self.concurrency = concurrency
        self.log = log
        self.seed = seed
        probeBackoff = Backoff(
            minimum: backoff.minimum, maximum: min(backoff.maximum, OriginLimits.longestProbeSeconds))
        self.flush = flush
    }

    /// The window a first request to `share` finds.
    package func newWindow(_ share: String, _ state: inout State) -> OriginState {
        let settings = withConfiguration { $0.settings(for: String(OriginRecord.origin(ofShare: share))) }
        var window = OriginState(
            maximum: maximum(settings), initial: settings.initialConcurrency, rate: settings.rate,
            burst: settings.burst)
        loadSeeds(&state)
        if let record = state.seeds?[share] { window.restore(record, nowSeconds: Timestamp.nowFractionalSeconds()) }
        if flush, OriginRecord.isDown(window.pauseCause) { window.liftPause() }
        if window.unreachableSince > 0 { state.anyUnreachable = true }
        if share.contains(" ") { state.hasShares = true }
        return window
    }

    /// The most requests an origin may have at once, over all its shares.
    func maximum(_ settings: OriginSettings) -> Int {
        min(concurrency, settings.maxConcurrency ?? concurrency)
    }

    /// Reads the seed records the first time they are needed.
    func loadSeeds(_ state: inout State) {
        if state.seeds == nil {
            state.seeds = Dictionary(seed().map { ($0.share, $0) }, uniquingKeysWith: { a, _ in a })
        }
    }

    /// The origins paused at `nowSeconds`, with the pause's end: what the last run left and what this one
    /// learned, for the plan, which leaves their keys out. A producer's share is not among them: names do not
    /// say whose they are, and the others' writes to the origin go on; its lanes meet its pause at `acquire`.
    package func pauses(nowSeconds: Int64) -> [(origin: String, until: Int64)] {
        state.withLock { state in
            loadSeeds(&state)
            // A share's window, once made, knows its pause better than the seed (it may have been lifted).
            var ends = (state.seeds ?? [:]).filter {
                $0.value.producer == nil && !(flush && OriginRecord.isDown($0.value.pausedBy))
            }.mapValues(\.pausedUntil)
            for (share, window) in state.windows where !share.contains(" ") {
                ends[share] = Int64(window.pausedUntil.rounded(.up))
            }
            return ends.filter { $0.value > nowSeconds }.map { ($0.key, $0.value) }
        }
    }

    /// What every origin used (and every one the last run knew of, for a week) has learned.
    /// Nil when nothing was learned since the last call: a watcher's idle rounds write nothing.
    package func records(nowSeconds: Int64) -> [OriginRecord]? {
        state.withLock { state in
            guard state.changed else { return nil }
            state.changed = false
            var records = state.seeds ?? [:]
            records = records.filter { nowSeconds - $0.value.updated < 7 * 86400 }
            for (share, window) in state.windows {
                var record = window.record(String(OriginRecord.origin(ofShare: share)), nowSeconds: nowSeconds)
                record.producer = OriginRecord.producer(ofShare: share)
                records[share] = record
            }
            return Array(records.values)
        }
    }

    /// A run begins: every origin must answer a probe again before it gets more than one request at once,
    /// since whatever made the last run's transport fail may still be true.
    package func startRun() {
        state.withLock {
            $0.answered.removeAll()
            $0.answeredHashes.removeAll()
        }
    }

    /// Whether an origin under `hash` answered, or took a connection, in this run.
    package func hasAnswered(hash: UInt32) -> Bool {
        state.withLock { $0.answeredHashes.contains(hash) }
    }

    /// How many requests `share` may have in flight now: its window, or one until its origin answered in this
    /// run (whoever's request it answered: the probe is the origin's, not each producer's).
    package static func room(_ share: String, _ state: State, window: Double) -> Int {
        state.answered.contains(origin(share, state)) ? Int(window) : 1
    }

    /// Where `origin`'s window is, made first if it has none. Why: each lookup hashes the whole origin, and a
    /// request asked for its window five times over; through the index it is hashed once.
    package func windowIndex(_ origin: String, _ state: inout State) -> Dictionary<String, OriginState>.Index {
        if let index = state.windows.index(forKey: origin) { return index }
        state.windows[origin] = newWindow(origin, &state)
        return state.windows.index(forKey: origin)!
    }

    /// Waits until a request to `share` may go, or says that it is paused; with `deadline` (epoch seconds), a
    /// wait for its pace that would end past it is said as a pause too.
    package func acquire(_ share: String, before deadline: Double? = nil) async -> Grant {
        while true {
            let admission = state.withLock { state in admit(share, &state) }
            switch admission {
            case let .go(ticket): return .go(ticket: ticket)
            case let .paused(until): return .paused(until: until)
            case let .wait(seconds):
                let until = Timestamp.nowFractionalSeconds() + seconds
                if let deadline, until >= deadline { return .paused(until: until) }
                try? await Task.sleep(nanoseconds: UInt64(min(seconds, OriginState.longestWaitSeconds) * 1e9) + 1)
            case .full:
                // Resumed with a ticket when a finish handed this lane its room (the shares of an origin), else
                // with nil to ask again.
                let handed = await withCheckedContinuation { (waiter: CheckedContinuation<Int?, Never>) in
                    // Asked again under the lock, so that a finish between the two cannot be missed.
                    let now = state.withLock { state -> Int?? in
                        switch admit(share, &state) {
                        case let .go(ticket): return .some(ticket)
                        case .full:
                            state.waiters[OriginLimits.origin(share, state), default: []].append((share, waiter))
                            return nil
                        case .paused, .wait: return .some(nil)
                        }
                    }
                    if let now { waiter.resume(returning: now) }
                }
                if let handed { return .go(ticket: handed) }
            }
        }
    }

    /// Whether a request to `share` may go now, counted as on its way if so.
    private func admit(_ share: String, _ state: inout State) -> OriginState.Admission {
        let index = windowIndex(share, &state)
        // Fields, not a copy of the window: a copy alive at `admit` would copy its pacer's record.
        let (inFlight, size) = (state.windows.values[index].inFlight, state.windows.values[index].window)
        if inFlight >= OriginLimits.room(share, state, window: size) { return .full }
        if state.hasShares, !mayJoin(share, state) { return .full }
        let admission = state.windows.values[index].admit(nowSeconds: Timestamp.nowFractionalSeconds())
        if case .go = admission, state.hasShares { OriginLimits.served(share, &state) }
        return admission
    }

    /// The probe's connection to `share`'s origin is up: the lanes waiting behind it may go, up to the window.
    package func connected(_ share: String) {
        let waiters = state.withLock { state -> [(CheckedContinuation<Int?, Never>, Int?)] in
            let origin = OriginLimits.origin(share, state)
            guard state.answered.insert(origin).inserted else { return [] }
            state.answeredHashes.insert(OrderingKey.originHash(origin))
            return handOff(share, &state)
        }
        for (waiter, ticket) in waiters { waiter.resume(returning: ticket) }
    }

    /// Reports how the request of `ticket` to `share` ended (nil when nothing was sent), and wakes the lanes
    /// waiting for room.
    package func finish(_ share: String, ticket: Int, _ result: Result<HTTPResponse, TransportError>?) {
        let nowSeconds = Timestamp.nowFractionalSeconds()
        let (changed, lesson, window, waiters) = state.withLock { state in
            // `acquire` made the window that issued the ticket, and windows are never removed. Changed in
            // place: a copy taken out of the dictionary would copy the pacer's record of answers on every
            // request (thousands of them at full speed).
            let settled = OriginLimits.settle(&state.windows[share]!, ticket: ticket, result, nowSeconds: nowSeconds)
            // Only an answer (or its absence after sending) teaches `.origins` anything.
            if result != nil { state.changed = true }
            if case let .success(response) = result {
                let origin = OriginLimits.origin(share, state)
                if state.answered.insert(origin).inserted {
                    state.answeredHashes.insert(OrderingKey.originHash(origin))
                }
                // It accepts again: if it was down, that ended now (said once, by the run's report). Looked up
                // only while some origin is: the first answer of each run pays for it, not every answer.
                let accepted = response.status < 500 && response.status != 429
                if accepted, state.anyUnreachable { OriginLimits.noteAnswered(share, &state) }
            }
            if settled.lesson == .unavailable { down(share, cause: "unavailable", nowSeconds: nowSeconds, &state) }
            return (settled.changed, settled.lesson, settled.window, handOff(share, &state))
        }
        for (waiter, ticket) in waiters { waiter.resume(returning: ticket) }
        if changed { log.detail("\(share): window \(window.size) (at most \(window.maximum))") }
        if lesson == .cut, let rate = window.rate {
            log.detail(
                "\(share): pushed back; sending rate cut to \(OriginRecord.format(rate: rate))/s (it accepted about "
                    + "\(OriginRecord.format(rate: window.limit))/s)")
        }
    }

    /// What the answer to `ticket` does to `window`: whether its size changed, whether its rate was cut, and
    /// what the log says of it then.
    private static func settle(
        _ window: inout OriginState, ticket: Int, _ result: Result<HTTPResponse, TransportError>?, nowSeconds: Double
    ) -> (changed: Bool, lesson: OriginState.Lesson, window: (size: Int, maximum: Int, rate: Double?, limit: Double))
    {
        let changed = window.finish(ticket: ticket, result.map(OriginLimits.signal) ?? .neutral)
        var lesson = OriginState.Lesson.nothing
        if case let .success(response) = result {
            // An instruction (a pause, a quota) is obeyed, and teaches no rate: the origin said what it wants.
            let instructed = OriginLimits.apply(response, to: &window, nowSeconds: nowSeconds)
            if !instructed { lesson = window.pace(status: response.status, ticket: ticket, nowSeconds: nowSeconds) }
        }
        return (changed, lesson, (Int(window.window), window.maximum, window.pacer.rate, window.pacer.limit))
    }

    /// Counts what an attempt to `origin` came to, and whether it retried an operation tried before.
    package func count(_ origin: String, _ kind: DeliveryCounts.Kind, retry: Bool) {
        state.withLock { state in
            let index = windowIndex(origin, &state)
            state.windows.values[index].deliveries[kind] += 1
            if retry { state.windows.values[index].deliveries[.retried] += 1 }
            state.changed = true
        }
    }
}
