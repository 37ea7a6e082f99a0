import SpoolConfiguration
import SpoolControl
import SpoolDocument
import SpoolHandlers
import SpoolNames
import SpoolQueue
import SpoolReporting
import SpoolSending
import SpoolSystem
import SpoolTransport

/// `spool-ctl hold` and `release`: Postfix's `postsuper -h` and `-H`. A held operation stays in `new/` under
/// its name with `s=held` added, so `ls` shows it and it keeps its place in its key: what follows it in the
/// key waits with it, and `release` lets them go in their order.
extension ControlSession {
    /// `spool-ctl hold`: holds the selected waiting operations in their place.
    package mutating func hold() { holdOrRelease(holding: true) }

    /// `spool-ctl release`: lets the selected held operations go again, in their order.
    package mutating func release() { holdOrRelease(holding: false) }

    /// The operations that `ID…`, `--key` or list's filters select, held or released one by one.
    package mutating func holdOrRelease(holding: Bool) {
        var changed = 0
        func act(_ item: QueueItem, _ session: inout ControlSession) {
            do {
                let moved = holding ? try session.spool.hold(item) : try session.spool.release(item)
                if moved != nil {
                    Program.printOut("\(item.id): \(holding ? "held" : "released")\n")
                    changed += 1
                } else if !session.command.positionals.isEmpty {
                    Program.printOut("\(item.id): \(holding ? "already held" : "not held")\n")
                }
            } catch {
                session.report(error)
            }
        }
        if command.positionals.isEmpty {
            let key = command.key
            var chosen: [QueueItem] = []
            // Collected first: each move renames within new/, which the listing must not see twice.
            ControlSession.forEachItem(spool, [.new]) { item in
                guard let operation = item.operation, item.held != holding, selected(item) else { return true }
                if let key, operation.key != key { return true }
                chosen.append(item)
                return true
            }
            for item in chosen { act(item, &self) }
        } else {
            for argument in givenIDs {
                if let item = find(argument) { act(item, &self) }
            }
        }
        let hint =
            holding
            ? "; 'spool-ctl release' sends them again in their place"
            : "; they go at their next attempt time ('spool-ctl retry --now ID' for at once)"
        Program.printOut("\(changed) operation(s) \(holding ? "held" : "released")\(changed > 0 ? hint : "")\n")
    }
}
