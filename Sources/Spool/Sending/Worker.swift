import Glibc
import SpoolConfiguration
import SpoolDocument
import SpoolHandlers
import SpoolNames
import SpoolQueue
import SpoolSystem
import SpoolTransport
import Synchronization

/// The sender: claims due operations in order, sends them through a transport, and moves each by its outcome.
///
/// A run works in rounds. Each round lists `new/` and `cur/` under the spool lock and forms one lane per
/// ordering key: that key's waiting operations in enqueue order, unless another worker holds one of them
/// in `cur/` or its first one is not due yet. Lanes run in parallel up to the concurrency; inside a lane
/// operations go strictly one after another, and a lane stops at the first operation that has to wait, so a
/// later write never overtakes an earlier one. Rounds repeat while they send anything, which picks up
/// operations that arrive during the run.
package final class Worker: Sendable {
    /// The spool this worker claims from and files into.
    package let spool: Spool

    /// What sends the requests; nil for a worker that only keeps house and plans.
    package let transport: (any Transport)?

    /// How this worker runs: concurrency, flush, backoff, limits, credentials, handlers and log.
    package let options: WorkerOptions

    /// Set by `requestStop`: no further operation is claimed.
    package let stopping = Atomic<Bool>(false)

    /// What the current run has counted and learned, shared by its lanes; reset when a run starts.
    package let state = Locked(RunState())

    /// How long the last `makePlan` took, in seconds (`lastPlanSeconds`).
    package let planSeconds = Locked(0.0)

    /// Each origin's window, rate and pause, learned across a watcher's runs.
    package let limits: OriginLimits

    /// Each producer's rights under the policy, looked up once per user id in a run.
    package let producerRights = Locked([UInt32: ProducerPolicy.Rights]())

    /// The spool's path from `/`, for handlers (`SPOOL_DIR`), which run there: found once, not per job.
    package let absoluteSpoolPath: String

    /// How long the last look at the queue took: a watcher paces itself by it, so that a stream of new files
    /// does not keep it listing a large queue instead of sending.
    package var lastPlanSeconds: Double { planSeconds.withLock { $0 } }

    /// What one run has counted and learned: its summary, the origins stopped or paused, the keys parked.
    package struct RunState {
        /// The counts per outcome that `run` returns.
        package var summary = RunSummary()
        /// Origins that failed at the transport level, with the failure's token: nothing more is sent to
        /// them this run.
        package var downOrigins: [String: String] = [:]
        /// The origins found unreachable in this run, with the first failure's token, and since when they were
        /// unreachable already (nil when it is news), for the run's report.
        package var wentUnreachable: [String: (token: String, since: Int64?)] = [:]
        /// The same origins by the hash names carry (`h=`): a lane holds back their operations unread.
        package var downOriginHashes: [UInt32: String] = [:]
        /// Operations left waiting in this run because their origin was stopped or paused, per origin.
        package var waitingOnOrigin: [String: Int] = [:]
        /// Origins that asked for a pause, met in this run, and until when.
        package var pausedOrigins: [String: Double] = [:]
        /// Keys that must wait for the rest of this run (deferred, lost a claim race, origin down).
        package var parkedKeys: Set<UInt64> = []
        /// Ids done in this round, for `depends_on`: the round's index of what is present was listed before
        /// they were done. Emptied with each round, so that it holds a round's worth, not a run's.
        package var completed: Set<String> = []
        /// When the earliest origin paused in this run may be sent to again, or the earliest operation it
        /// deferred is due (seconds since the epoch): a plan skips the keys parked in the run, so it cannot tell.
        package var resumeAt: Int64?

        /// Nothing more is sent to `origin` this run: it failed at the transport level (`token`).
        package mutating func markDown(_ origin: String, token: String) {
            downOrigins[origin] = token
            downOriginHashes[OrderingKey.originHash(origin)] = origin
        }
    }

    /// A worker on `spool` sending through `transport`; without one it can only keep house and plan.
    package init(spool: Spool, transport: (any Transport)? = nil, options: WorkerOptions) {
        self.spool = spool
        self.transport = transport
        self.options = options
        absoluteSpoolPath = FileName.absolutePath(spool.path)
        faults = Faults(log: options.log)
        remover = Remover(spool: spool, concurrency: options.concurrency, faults: faults, log: options.log)
        limits = OriginLimits(
            configuration: options.configuration, concurrency: options.concurrency, log: options.log,
            backoff: options.backoff, flush: options.flush
        ) { [spool] in
            OriginRecord.read(spool)
        }
    }

    /// `origin`'s settings in spool.conf(5) as in use: read at start, and again when a watcher is told to
    /// (`reconfigure`).
    package func settings(for origin: String) -> OriginSettings {
        limits.withConfiguration { $0.settings(for: origin) }
    }

    /// The handler directory in use (`--handler-dir`, else spool.conf's `handler-dir`).
    package var handlers: HandlerDirectory? {
        limits.withConfiguration(\.handlerDirectory).map(HandlerDirectory.init(path:))
    }

    /// The largest payload sent (`--max-payload`, else spool.conf's `max-payload`).
    package var maxPayload: Int64 { limits.withConfiguration(\.maxPayload) ?? options.maxPayload }

    /// Puts `configuration` in use, read again by a watcher: the origins' new limits apply at once, what they
    /// taught is kept, and each producer's rights are looked up again under its policy.
    package func reconfigure(_ configuration: SpoolConfiguration) {
        limits.reconfigure(configuration)
        producerRights.withLock { $0 = [:] }
    }

    /// Asks the worker to stop claiming; requests in flight finish (or time out) first.
    package func requestStop() { stopping.store(true, ordering: .relaxed) }

    /// Whether a stop was requested, or the spool's storage failed so that going on would only fail again.
    package var isStopping: Bool { stopping.load(ordering: .relaxed) || faults.endRun }

    /// The faults met, and the claims they stranded.
    package let faults: Faults

    /// Notes a fault of the spool (not of an operation): logged once per kind, kept for the exit status.
    package func record(_ fault: SystemCallError) { faults.record(fault) }

    /// The faults met since the last call, and forgets them: what decides a run's exit status.
    package func takeFaults() -> FaultReport { faults.take() }

    /// The log from the worker's options.
    package var log: Log { options.log }

    /// Takes delivered operations out of `cur/`.
    package let remover: Remover

    /// Sends `plan`'s lanes, `--concurrency` at once. One task per slot, each taking the next lane as it
    /// finishes one: no task made per lane, and no wake-up of this task between lanes. They run where the
    /// transport says for their slot: the HTTP engines run them on their own threads, dealt out in turn, between
    /// libcurl's turns, so that a request and its answer cross no thread.
    package func sendLanes(of plan: Plan) async {
        let taken = Locked(0)
        await withTaskGroup(of: Void.self) { group in
            for slot in 0..<max(1, options.concurrency) {
                group.addTask(executorPreference: transport?.laneExecutor(slot: slot)) {
                    while !self.isStopping {
                        let index = taken.withLock { taken in
                            defer { taken += 1 }
                            return taken
                        }
                        guard index < plan.lanes.count else { return }
                        self.readAhead(lanesAfter: index, of: plan)
                        await self.process(plan.lanes[index], plan: plan)
                    }
                }
            }
        }
    }

    /// Sends everything that is due, round after round, until a round sends nothing.
    package func run() async -> RunSummary {
        state.withLock { $0 = RunState() }
        limits.startRun()
        // The run's own use of the spool lock: housekeeping's before it is not counted.
        _ = spool.takeLockUse()
        var nextDue: Int64?
        var heldKeys = 0
        while !isStopping {
            state.withLock { $0.completed.removeAll() }
            var plan = makePlan()
            // The queue is read: a watcher is up, however long its backlog takes to send.
            options.service?.ready()
            saySetAside()
            (nextDue, heldKeys) = (plan.nextDue, plan.heldKeys)
            notePauses(plan)
            if plan.lanes.isEmpty { break }
            let before = state.withLock {
                $0.summary.attempts + $0.summary.failed + $0.summary.conflicts + $0.summary.coalesced + $0.summary.done
            }
            plan.readAhead = makeReadAhead()
            await sendLanes(of: plan)
            // Every delivered file is gone before the next plan and before the run ends: the plan sees no
            // delivered claim in cur/, and tmp/ holds no more than one round's deliveries.
            await remover.drain()
            let after = state.withLock {
                $0.summary.attempts + $0.summary.failed + $0.summary.conflicts + $0.summary.coalesced + $0.summary.done
            }
            if after == before || options.reloadPending() { break }
        }
        reportOrigins()
        saySetAside()
        let lockUse = spool.takeLockUse()
        return state.withLock { run in
            var summary = run.summary
            summary.nextDue = [nextDue, run.resumeAt].compactMap { $0 }.min()
            summary.heldKeys = heldKeys
            summary.lockUse = lockUse
            (summary.downOrigins, summary.pausedOrigins) = (run.downOrigins.count, run.pausedOrigins.count)
            return summary
        }
    }

    /// Takes in the pauses a plan honoured without reading any document, for the run's report.
    package func notePauses(_ plan: Plan) {
        guard !plan.heldByPause.isEmpty else { return }
        state.withLock { run in
            // An origin down has its own count (its lanes'), of what waits besides the request that failed.
            for (origin, pause) in plan.heldByPause where run.downOrigins[origin] == nil {
                run.pausedOrigins[origin] = max(run.pausedOrigins[origin] ?? 0, Double(pause.until))
                run.waitingOnOrigin[origin] = pause.count
            }
        }
    }

    /// Says, at the default level, only what changed since spool last spoke of an origin: it went down
    /// (unreachable, unavailable) or came back, or a new pause; with `-v`, every run's state of each.
    package func reportOrigins() {
        let (down, paused, waiting, unreachable) = state.withLock {
            ($0.downOrigins, $0.pausedOrigins, $0.waitingOnOrigin, $0.wentUnreachable)
        }
        // A handler that cannot run was logged with its reason already.
        let nowSeconds = Timestamp.nowSeconds()
        for (origin, (token, since)) in unreachable.sorted(by: { $0.key < $1.key }) {
            let line = "\(origin): \(token); nothing more is sent to it in this run (\(waiting[origin, default: 0]) "
                + "more operation(s) held back)"
            let about = LogFields(.unreachable, origin: origin, outcome: "deferred")
            if let since {
                log.detail(line + "; unreachable since \(Timestamp.formatRFC3339(since))", about)
            } else {
                log.notice(line, about)
            }
        }
        for (origin, cause, until) in limits.takeWentDown() {
            log.notice(
                "\(origin): \(cause): it accepted nothing (429 or 503 without Retry-After); probed again at "
                    + "\(Timestamp.formatRFC3339(Int64(until.rounded(.up)))) (\(waiting[origin, default: 0]) "
                    + "operation(s) held back)", LogFields(.unavailable, origin: origin, outcome: "deferred"))
        }
        for (origin, since, cause) in limits.takeRecovered() {
            let was = cause == "unavailable" ? "unavailable" : "unreachable"
            log.notice("\(origin): reachable again, after \(humanDuration(max(0, nowSeconds - since))) \(was)",
                       LogFields(.reachable, origin: origin))
        }
        for (share, until) in paused.sorted(by: { $0.key < $1.key }) where down[share] == nil
            && unreachable[share] == nil
        {
            let origin = OriginRecord.origin(ofShare: share)
            let whose = OriginRecord.producer(ofShare: share).map { " for \(UserDatabase.display($0))'s writes" } ?? ""
            let end = Int64(until.rounded(.up))
            let line = "\(origin): paused\(whose) until \(Timestamp.formatRFC3339(end)) "
                + "(\(limits.pauseCause(share, nowSeconds: Double(nowSeconds)))); "
                + "\(waiting[share, default: 0]) operation(s) held back; "
                + "'spool-ctl flush --origin \(origin)' lifts it"
            let about = LogFields(.paused, origin: String(origin), outcome: "deferred")
            if limits.announce(share, until: end) { log.notice(line, about) } else { log.detail(line, about) }
        }
    }

    /// Keeps what the origins taught this run in the spool's `.origins`, for the next run and for
    /// `spool-ctl stats`; nothing when no request ended since the last save.
    package func saveOrigins() {
        guard let records = limits.records(nowSeconds: Timestamp.nowSeconds()) else { return }
        OriginRecord.write(records, to: spool)
    }

    /// Whether anything is due now: the light front's question. It plans a round as a run would, without the
    /// second pass when the first found a key certainly due, so it reads only names, except that files dropped
    /// under plain names are admitted (read, checked, renamed or filed) and what expired is filed, which needs
    /// no HTTP.
    ///
    /// A queue that was idle at the last look and has not changed since is not listed again (`IdleHint`).
    /// With `housekeeping`, it keeps house first, and plans from the names its listing of `cur/` left there:
    /// a claim made or ended between the two looks is as one made or ended during the plan, which a plan
    /// never sees either, and the sender, if one is started, plans afresh.
    package func hasDueWork(housekeeping keepsHouse: Bool = false) -> Bool {
        // Folder times before any listing: a change made after this reading shows as a different time later.
        let before = IdleHint.folderTimes(spool)
        let claims = keepsHouse ? housekeeping() : nil
        let nowSeconds = Timestamp.nowSeconds()
        if !options.flush, let hint = IdleHint.read(spool), hint.stillHolds(spool, nowSeconds: nowSeconds) {
            return false
        }
        let plan = makePlan(deciding: true, claims: claims)
        saySetAside()
        if plan.foundDue { return true }
        if plan.lanes.isEmpty, !plan.heldByPause.isEmpty {
            // Nothing due but what paused origins hold: said here, as the sender would have said it.
            notePauses(plan)
            reportOrigins()
        }
        if plan.lanes.isEmpty, !options.flush, !plan.sawPlainNames, let before,
            Timestamp.nowMicroseconds() * 1000 - max(before.new, before.cur) > IdleHint.settleNanoseconds
        {
            IdleHint(
                newModifiedNanoseconds: before.new, curModifiedNanoseconds: before.cur,
                dueSeconds: plan.nextDue ?? Int64.max
            ).write(to: spool)
        }
        return !plan.lanes.isEmpty
    }
}
