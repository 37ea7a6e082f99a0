// spool-enqueue: queue one HTTP write durably and print its id. The logic is EnqueueCommand, in the library.
import Glibc
import Spool

let command = EnqueueCommand.fromCommandLine()
do {
    Program.printOut(try command.run() + "\n")
} catch {
    Program.fail(EnqueueCommand.program, error.description, code: error.exitCode)
}
