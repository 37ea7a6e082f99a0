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

let command = EnqueueCommand.fromCommandLine()
do {
    Program.printOut(try command.run() + "\n")
} catch {
    Program.fail(EnqueueCommand.program, error.description, code: error.exitCode)
}
