import Glibc

extension SendCommand {
    /// How often a watcher looks for claims left by dead workers, filings cut short and old files in tmp/.
    static let housekeepingInterval: Int64 = 60
    /// How often a watcher looks at `new/` on a network or FUSE file system unless `--poll` says otherwise.
    static let sharedPollSeconds: Int64 = 2
    /// How long a watcher waits before trying a spool whose file system was out of reach (ENOTCONN, ESTALE).
    static let unreachableRetrySeconds: Int64 = 5
    /// The shortest time between two retries the network's news brings on: each counts an attempt, and a
    /// flapping link must not use up `max_attempts`.
    static let networkRetrySpacing = 10.0

    /// The light front's question, from file names alone (after housekeeping): returns when the sender is
    /// needed (something is due, or `--watch`); exits when nothing is due or a fault settles the status.
    public func exitUnlessSenderNeeded() {
        if watch { return }
        let worker = Worker(spool: openSpool(), options: options)
        worker.housekeeping()
        let due = worker.hasDueWork()
        let faults = worker.takeFaults()
        // The sender meets any fault again and reports it after sending what it can; a failing storage or
        // nothing to send ends here.
        if !due || faults.stopsRun { SendCommand.exitIfFaulted(faults) }
        if !due {
            options.log.detail("nothing due")
            exit(0)
        }
    }

    /// Sends what is due through `transport`, once or (with `--watch`) until stopped, and exits with the
    /// run's status.
    public func send(_ spool: Spool, through transport: any Transport) async -> Never {
        let wakeup: Wakeup
        do { wakeup = try Wakeup(watching: watch ? "\(spool.path)/new" : nil) } catch {
            Program.fail(SendCommand.program, "cannot watch \(spool.path)/new: \(error)", code: ExitCode.ioError)
        }
        let worker = Worker(spool: spool, transport: transport, options: options)
        wakeup.onStopSignal { worker.requestStop() }
        worker.housekeeping()
        var lastHousekeeping = Timestamp.now()
        let poll = pollSeconds ?? (watch && spool.mayBeShared ? SendCommand.sharedPollSeconds : nil)
        var networkRetry = NetworkRetry()
        if watch { options.log.detail("watching \(spool.path)/new (pid \(getpid()), --concurrency \(options.concurrency))") }
        while true {
            let summary = await worker.run()
            if !watch || !summary.isEmpty { options.log.detail(summary.line) }
            worker.returnStranded()
            worker.saveOrigins()
            let faults = worker.takeFaults()
            // A watcher lives through faults that pass (they were logged); a failing storage ends it, so that
            // its supervisor sees the status and restarts it later.
            if !watch || faults.endsWatcher { SendCommand.exitIfFaulted(faults) }
            if !watch || worker.isStopping { break }
            if faults.stopsRun {
                options.log.warning("the spool's file system is out of reach; trying again in \(SendCommand.unreachableRetrySeconds)s")
                if await wakeup.wait(seconds: Double(SendCommand.unreachableRetrySeconds)) == .stop { break }
                if !spool.reachesItsPath {
                    Program.fail(SendCommand.program, "\(spool.path) was mounted again under this watcher; start it again to use the new mount", code: ExitCode.temporaryFailure)
                }
                continue
            }
            let now = Timestamp.now()
            // Claims of a dead host are looked for at least once per lease, so they wait at most two.
            let interval = min(SendCommand.housekeepingInterval, max(1, options.lease))
            if now - lastHousekeeping >= interval {
                worker.housekeeping()
                lastHousekeeping = now
            }
            var wait = Double(lastHousekeeping + interval - now)
            if let due = summary.nextDue { wait = min(wait, Double(max(due - now, 0)) + 0.01) }
            if let poll { wait = min(wait, Double(poll)) }
            if let pending = networkRetry.pendingAt { wait = min(wait, max(0, pending - Timestamp.monotonicSeconds())) }
            let reason = await wakeup.wait(seconds: wait)
            if reason == .stop { break }
            if networkRetry.due(changed: reason == .network, now: Timestamp.monotonicSeconds()) { worker.retryNetworkFailures() }
            if reason == .files {
                // Let a burst of drops gather: spend at most a quarter of the time listing the queue.
                let pause = min(0.5, worker.lastPlanDuration * 3)
                if pause > 0.001 { usleep(UInt32(pause * 1e6)) }
            }
        }
        if watch { options.log.detail("stopped; every operation is in its place") }
        exit(0)
    }
}

/// When a watcher retries what the network deferred: at once on the network's news, but at most once per
/// `networkRetrySpacing`; news within it is kept for the end of it.
struct NetworkRetry {
    var last: Double?
    /// When a retry held back by the spacing is due (monotonic seconds).
    var pendingAt: Double?

    /// Whether to retry now, given whether the network just changed.
    mutating func due(changed: Bool, now: Double) -> Bool {
        if changed, let last, now - last < SendCommand.networkRetrySpacing {
            pendingAt = last + SendCommand.networkRetrySpacing
            return false
        }
        guard changed || (pendingAt.map { now >= $0 } ?? false) else { return false }
        last = now
        pendingAt = nil
        return true
    }
}

