// spool-send: the light front. It links no networking code, so that a cron run with nothing due costs
// little more than a process start: it recovers claims, cleans tmp/, admits dropped files and looks for
// due work from file names alone. Only when something is due (or for --watch) does it exec
// spool-send-http, the half that sends, with the same arguments.
import Glibc
import Spool

let command = SendCommand.fromCommandLine()
if !command.watch {
    let spool = command.openSpool()
    let worker = Worker(spool: spool, options: command.options)
    worker.housekeeping()
    let due = worker.hasDueWork()
    let faults = worker.takeFaults()
    // The sender meets any fault again and reports it after sending what it can; a failing storage or
    // nothing to send ends here.
    if !due || faults.stopsRun { SendCommand.exitIfFaulted(faults) }
    if !due { exit(0) }
}
let sender = Program.siblingExecutable("spool-send-http")
var argv: [UnsafeMutablePointer<CChar>?] = CommandLine.arguments.map { strdup($0) } + [nil]
execv(sender, &argv)
Program.fail(SendCommand.program, "cannot run \(sender): \(Errno.current)", code: ExitCode.software)
