import Glibc

extension SendCommand {
    /// How often a watcher looks for claims left by dead workers, filings cut short and old files in tmp/.
    static let housekeepingInterval: Int64 = 60
    /// How often a watcher looks at `new/` on a network or FUSE file system unless `--poll` says otherwise.
    static let sharedPollSeconds: Int64 = 2

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
        if !due { exit(0) }
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
        while true {
            let summary = await worker.run()
            worker.returnStranded()
            let faults = worker.takeFaults()
            // A watcher lives through shortages that pass (they were logged); a failing storage ends it, so
            // that its supervisor sees the status and restarts it later.
            if !watch || faults.stopsRun { SendCommand.exitIfFaulted(faults) }
            if !watch || worker.isStopping { break }
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
            let reason = await wakeup.wait(seconds: wait)
            if reason == .stop { break }
            if reason == .files {
                // Let a burst of drops gather: spend at most a quarter of the time listing the queue.
                let pause = min(0.5, worker.lastPlanDuration * 3)
                if pause > 0.001 { usleep(UInt32(pause * 1e6)) }
            }
        }
        exit(0)
    }
}
