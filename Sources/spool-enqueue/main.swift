// spool-enqueue: queue one HTTP write (or a batch of them) durably and print its id. The logic is
// EnqueueCommand, in the library.
import Glibc
import Spool
import SpoolConfiguration
import SpoolControl
import SpoolDocument
import SpoolHandlers
import SpoolQueue
import SpoolReporting
import SpoolSending
import SpoolSystem
import SpoolTransport

// Installed set-group-ID to a shared spool's drop group: work as the caller until the operation is placed.
let group = GroupPrivilege.setAside()
var command = EnqueueCommand.fromCommandLine()
do { command = try command.withLimitsInForce() } catch {
    Program.fail(EnqueueCommand.program, error.description, code: ExitCode.configuration)
}
do throws(EnqueueInputError) {
    if command.batchInput != nil {
        // One line per document, in input order: an empty one for a DELETE that cancelled what it would delete.
        // A batch stopped after some of it was queued says what was, then why it stopped.
        let (results, failure) = try command.runBatch(group: group)
        Program.printOut(results.map { $0.report.out.isEmpty ? "\n" : $0.report.out }.joined())
        for note in results.compactMap(\.report.error) { Program.printError(note) }
        if let failure { throw failure }
    } else {
        let (out, note) = try command.run(group: group).report
        Program.printOut(out)
        if let note { Program.printError(note) }
    }
} catch {
    Program.fail(EnqueueCommand.program, error.description, code: error.exitCode)
}
