import Glibc
import SpoolQueue
import SpoolSending
import SpoolSystem
import SpoolTransport

extension SendCommand {
    /// The light front's question, from file names alone (after housekeeping): returns when the sender is
    /// needed (something is due, or `--watch`); exits when nothing is due or a fault settles the status.
    package func exitUnlessSenderNeeded() {
        if watch { return }
        let worker = Worker(spool: openSpool(), options: options)
        let due = worker.hasDueWork(housekeeping: true)
        let faults = worker.takeFaults()
        // The sender meets any fault again and reports it after sending what it can; a failing storage or
        // nothing to send ends here.
        if !due || faults.stopsRun { SendCommand.exitIfFaulted(faults) }
        if !due {
            options.log.detail("nothing due")
            exit(0)
        }
    }

    /// Sends what is due through `transport`, once or (with `--watch`) until stopped, and returns the run's
    /// exit status, its message printed. The caller exits once this function's state is released, so that a
    /// leak checker finds nothing still held at exit. `housekept`: the light front did this run's housekeeping.
    package func send(_ spool: Spool, through transport: any Transport, housekept: Bool = false) async -> Int32 {
        let wakeup: Wakeup
        do { wakeup = try Wakeup(watching: watch ? "\(spool.path)/new" : nil) } catch {
            Program.printError("\(SendCommand.program): error: cannot watch \(spool.path)/new: \(error)\n")
            return ExitCode.ioError
        }
        var options = options
        // Started by systemd as Type=notify: a watcher says when it is ready, how it is, and that it lives.
        if watch, let notifier = ServiceNotifier.fromEnvironment() { options.service = ServiceStatus(notifier) }
        options.reloadPending = { wakeup.reloadPending }
        let worker = Worker(spool: spool, transport: transport, options: options)
        wakeup.onStopSignal { worker.requestStop() }
        let (service, log) = (options.service, options.log)
        let loop = RunLoop(
            worker: worker, wakeup: wakeup, spool: spool, options: options, watch: watch, pollSeconds: pollSeconds,
            threads: self.transport.threads, housekept: housekept
        ) { [self] in reload(worker, service: service, log: log) }
        switch await loop.run() {
        case .finished: return 0
        case let .faulted(faults):
            if faults.isEmpty { return 0 }
            Program.printError("\(SendCommand.program): error: \(faults.summary)\n")
            return faults.exitCode
        case .remounted:
            Program.printError(
                "\(SendCommand.program): error: \(spool.path) was mounted again under this watcher; start it "
                    + "again to use the new mount\n")
            return ExitCode.temporaryFailure
        }
    }
}
