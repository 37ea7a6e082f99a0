// spool-send: the light front. It links no networking code, so that a cron run with nothing due costs
// little more than a process start: it recovers claims, cleans tmp/, admits dropped files and looks for
// due work from file names alone. Only when something is due (or for --watch) does it exec
// spool-send-http, the half that sends, with the same arguments.
import Glibc
import Spool
import SpoolSystem

var command = SendCommand.fromCommandLine()
command.loadConfiguration()
command.requireUsableProfiles()
command.exitUnlessSenderNeeded()
// What the front did is not done again: the sender skips the first housekeeping and the TLS checks.
if !command.watch { Environment.handOff() }
let sender = Program.siblingExecutable("spool-send-http")
var argv: [UnsafeMutablePointer<CChar>?] = CommandLine.arguments.map { strdup($0) } + [nil]
execv(sender, &argv)
Program.fail(SendCommand.program, "cannot run \(sender): \(Errno.current)", code: ExitCode.software)
