// The sending half of spool-send: links FoundationNetworking, so the light front execs it only when
// something is due (or for --watch). Takes exactly spool-send's arguments.
import Glibc
import Spool
import SpoolHTTP

let command = SendCommand.fromCommandLine()
command.requireDescriptors()
let spool = command.openSpool()
let wakeup: Wakeup
do { wakeup = try Wakeup(watching: command.watch ? "\(spool.path)/new" : nil) } catch {
    Program.fail(SendCommand.program, "cannot watch \(spool.path)/new: \(error)", code: ExitCode.ioError)
}
let transport = RoutingTransport(timeout: command.timeout, connections: command.options.concurrency)
let worker = Worker(spool: spool, transport: transport, options: command.options)
wakeup.onStopSignal { worker.requestStop() }

/// How often a watcher looks for claims left by dead workers and old files in tmp/.
let housekeepingInterval: Int64 = 60

worker.housekeeping()
var lastHousekeeping = Timestamp.now()
while true {
    let summary = await worker.run()
    worker.returnStranded()
    let faults = worker.takeFaults()
    // A watcher lives through shortages that pass (they were logged); a failing storage ends it, so that
    // its supervisor sees the status and restarts it later.
    if !command.watch || faults.stopsRun { SendCommand.exitIfFaulted(faults) }
    if !command.watch || worker.isStopping { break }
    let now = Timestamp.now()
    if now - lastHousekeeping >= housekeepingInterval {
        worker.housekeeping()
        lastHousekeeping = now
    }
    var wait = Double(lastHousekeeping + housekeepingInterval - now)
    if let due = summary.nextDue { wait = min(wait, Double(max(due - now, 0)) + 0.01) }
    let reason = await wakeup.wait(seconds: wait)
    if reason == .stop { break }
    if reason == .files {
        // Let a burst of drops gather: spend at most a quarter of the time listing the queue.
        let pause = min(0.5, worker.lastPlanDuration * 3)
        if pause > 0.001 { usleep(UInt32(pause * 1e6)) }
    }
}
exit(0)
