import Glibc
import SpoolQueue
import SpoolSystem

/// What `spool-send` does after its start: one run (`--once`), or a watcher's rounds (`--watch`) until a stop
/// signal, with housekeeping every minute, polls of a shared file system, the network's news and a file
/// system out of reach waited out. It decides and sends; the command line turns its end into an exit status.
package struct RunLoop {
    /// How often a watcher looks for claims left by dead workers, filings cut short and old files in tmp/.
    package static let housekeepingIntervalSeconds: Int64 = 60
    /// How long a watcher waits before trying a spool whose file system was out of reach (ENOTCONN, ESTALE).
    package static let unreachableRetrySeconds: Int64 = 5
    /// The shortest time between two retries the network's news brings on: each counts an attempt, and a
    /// flapping link must not use up `max_attempts`.
    package static let networkRetrySpacingSeconds = 10.0

    /// How the loop ended.
    package enum End {
        /// Done (a run) or stopped (a watcher), every operation in its place.
        case finished
        /// A run met faults, or a watcher's storage failed: the status they set.
        case faulted(FaultReport)
        /// The spool's file system was mounted again under the watcher, whose descriptors are stale.
        case remounted
    }

    let worker: Worker
    let wakeup: Wakeup
    let spool: Spool
    let options: WorkerOptions
    let watch: Bool
    let pollSeconds: Int64?
    /// Threads that send (`--threads`), for the watcher's first line.
    let threads: Int
    /// Whether this run's housekeeping was done (by the light front, before it exec'd the sender).
    let housekept: Bool
    /// What a watcher does on SIGHUP: read its settings again.
    let reload: @Sendable () -> Void

    /// A loop over `spool` with `worker`, woken by `wakeup`; `threads` is what `worker`'s transport sends on.
    package init(
        worker: Worker, wakeup: Wakeup, spool: Spool, options: WorkerOptions, watch: Bool, pollSeconds: Int64?,
        threads: Int, housekept: Bool = false, reload: @escaping @Sendable () -> Void = {}
    ) {
        (self.worker, self.wakeup, self.spool, self.options, self.watch, self.pollSeconds, self.threads) = (
            worker, wakeup, spool, options, watch, pollSeconds, threads
        )
        self.housekept = housekept
        self.reload = reload
    }

    /// Runs until done or stopped.
    package func run() async -> End {
        if !housekept { worker.housekeeping() }
        var lastHousekeeping = Timestamp.nowSeconds()
        let poll = pollSeconds ?? (watch && spool.storage.mayBeShared ? SharedStorage.pollSeconds : nil)
        var networkRetry = NetworkRetry()
        if watch {
            options.log.detail(
                "watching \(spool.path)/new (pid \(getpid()), --concurrency \(options.concurrency), "
                    + "--threads \(threads))")
        }
        while true {
            let summary = await worker.run()
            if !watch || !summary.isEmpty { options.log.detail(summary.line) }
            options.service?.status(summary.statusLine)
            options.service?.alive()
            worker.unclaimStranded()
            worker.saveOrigins()
            let faults = worker.takeFaults()
            // A watcher lives through faults that pass (they were logged); a failing storage ends it, so that
            // its supervisor sees the status and restarts it later.
            if (!watch || faults.endsWatcher) && !faults.isEmpty { return .faulted(faults) }
            if !watch || worker.isStopping { break }
            if faults.stopsRun {
                options.log.warning(
                    "the spool's file system is out of reach; trying again in \(RunLoop.unreachableRetrySeconds)s")
                let reason = await wakeup.wait(seconds: Double(RunLoop.unreachableRetrySeconds))
                if reason == .stop { break }
                if reason == .reload { reload() }
                if !spool.reachesItsPath { return .remounted }
                continue
            }
            let nowSeconds = Timestamp.nowSeconds()
            // Claims of a dead host are looked for at least once per lease, so they wait at most two.
            let interval = min(RunLoop.housekeepingIntervalSeconds, max(1, options.leaseSeconds))
            if nowSeconds - lastHousekeeping >= interval {
                worker.housekeeping()
                lastHousekeeping = nowSeconds
            }
            if await !waitForNews(summary, housekeptAt: lastHousekeeping, interval: interval, poll: poll, &networkRetry)
            {
                break
            }
        }
        if watch {
            options.service?.stopping()
            options.log.detail("stopped; every operation is in its place")
        }
        return .finished
    }

    /// Waits for what comes first: a drop, the next due time, housekeeping, a poll, the network's news, a
    /// reload (done before the next round, which then runs under the new settings); false on a stop signal.
    func waitForNews(_ summary: RunSummary, housekeptAt lastHousekeeping: Int64, interval: Int64, poll: Int64?,
                     _ networkRetry: inout NetworkRetry) async -> Bool {
        let nowSeconds = Timestamp.nowSeconds()
        var wait = Double(lastHousekeeping + interval - nowSeconds)
        if let due = summary.nextDue { wait = min(wait, Double(max(due - nowSeconds, 0)) + 0.01) }
        if let poll { wait = min(wait, Double(poll)) }
        if let pending = networkRetry.pendingAt { wait = min(wait, max(0, pending - Timestamp.monotonicSeconds())) }
        // The watchdog hears from the idle loop at least once per its half interval, without a round for it.
        let deadlineSeconds = Timestamp.monotonicSeconds() + wait
        var reason: Wakeup.Reason
        repeat {
            let leftSeconds = max(0, deadlineSeconds - Timestamp.monotonicSeconds())
            reason = await wakeup.wait(seconds: min(leftSeconds, options.service?.longestWaitSeconds ?? leftSeconds))
            options.service?.alive()
        } while reason == .timeout && Timestamp.monotonicSeconds() < deadlineSeconds
        if reason == .stop { return false }
        if reason == .reload { reload() }
        if networkRetry.due(changed: reason == .network, nowSeconds: Timestamp.monotonicSeconds()) {
            worker.retryNetworkFailures()
        }
        if reason == .files {
            // Let a burst of drops gather: spend at most a quarter of the time listing the queue.
            let pause = min(0.5, worker.lastPlanSeconds * 3)
            if pause > 0.001 { try? await Task.sleep(nanoseconds: UInt64(pause * 1e9)) }
        }
        return true
    }
}

/// When a watcher retries what the network deferred: at once on the network's news, but at most once per
/// `networkRetrySpacingSeconds`; news within it is kept for the end of it.
package struct NetworkRetry {
    /// When the last retry was made (monotonic seconds); nil before the first.
    package var last: Double?
    /// When a retry held back by the spacing is due (monotonic seconds).
    package var pendingAt: Double?

    /// Whether to retry now, given whether the network just changed.
    package mutating func due(changed: Bool, nowSeconds: Double) -> Bool {
        if changed, let last, nowSeconds - last < RunLoop.networkRetrySpacingSeconds {
            pendingAt = last + RunLoop.networkRetrySpacingSeconds
            return false
        }
        guard changed || (pendingAt.map { nowSeconds >= $0 } ?? false) else { return false }
        last = nowSeconds
        pendingAt = nil
        return true
    }
}

