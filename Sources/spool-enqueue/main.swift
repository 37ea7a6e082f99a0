// spool-enqueue: queue one HTTP write durably and print its id. The logic is EnqueueCommand, in the library.
import Glibc
import Spool
import SpoolSystem
import SpoolTransport
import SpoolNames
import SpoolDocument
import SpoolConfiguration
import SpoolQueue
import SpoolHandlers
import SpoolSending
import SpoolReporting
import SpoolControl

// Installed set-group-ID to a shared spool's drop group: work as the caller until the operation is placed.
let group = GroupPrivilege.setAside()
var command = EnqueueCommand.fromCommandLine()
if Environment.isSecure {
    // The caller's options and variables may tighten the administrator's limits, never loosen them.
    do {
        let configuration = try EnqueueCommand.administratorConfiguration()
        command = command.tightened(by: configuration).keepingToPolicy(of: configuration)
    } catch {
        Program.fail(EnqueueCommand.program, error.description, code: ExitCode.configuration)
    }
} else if let path = SpoolConfiguration.defaultPath(option: nil),
          let configuration = try? SpoolConfiguration.load(path: path) {
    // The caller's own choice of spool.conf: its producer policy's limits, where it drops into a shared spool.
    command = command.keepingToPolicy(of: configuration)
}
do {
    let (out, note) = try command.run(group: group).report
    Program.printOut(out)
    if let note { Program.printError(note) }
} catch {
    Program.fail(EnqueueCommand.program, error.description, code: error.exitCode)
}
