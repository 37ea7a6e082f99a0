import Glibc
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

/// `spool-ctl flush --origin O`, Postfix's `postqueue -s`: every deferred operation to one origin made due
/// now, in its place in the order, and the pause the origin asked for lifted, so that the next run sends to
/// it at once.
extension ControlSession {
    /// `spool-ctl shape`: waiting operations by origin and age, as qshape prints a Postfix queue.
    package func shape() {
        let which = command.positionals.first ?? "waiting"
        let folders: [Spool.Folder] = switch which {
        case "waiting": [.new, .cur]
        case "all": [.new, .cur, .failed, .conflict]
        default: [Spool.Folder(rawValue: which)!]
        }
        do { Program.printOut(try SpoolShape(spool: spool, folders: folders, nowSeconds: nowSeconds).text) } catch {
            Program.fail(program, "cannot list \(spool.path): \(error)", code: ExitCode.ioError)
        }
    }

    /// `spool-ctl flush --origin O`: every deferred operation to O made due now, its pause lifted and the rate
    /// learned from it forgotten (back to spool.conf's settings), asking first on a terminal.
    package mutating func flush() {
        guard let origin = command.origin else { return }
        let records = OriginRecord.read(spool)
        // The origin's pause, or the longest of its producers' shares'; the lowest rate learned of it.
        let paused = records.filter { $0.origin == origin && $0.pausedUntil > nowSeconds }
            .max { $0.pausedUntil < $1.pausedUntil }
        let pause = paused?.pausedUntil
        let learned = records.filter { $0.origin == origin && $0.learnedRate > 0 }.map(\.learnedRate).min()
        if isatty(STDIN_FILENO) != 0 && !command.flags.contains("--yes") {
            let lifting = pause.map { " and lift its pause until \(Timestamp.formatRFC3339($0))" } ?? ""
            if !ControlSession.confirm("send every deferred operation to \(origin) now\(lifting)?") { return }
        }
        if pause != nil || learned != nil {
            var kept = records
            for index in kept.indices where kept[index].origin == origin { kept[index].forgetPace() }
            OriginRecord.write(kept, to: spool)
        }
        if let paused {
            let cause = OriginRecord.pauseCause(paused.pausedBy).map { " (\($0))" } ?? ""
            Program.printOut("\(origin): pause until \(Timestamp.formatRFC3339(paused.pausedUntil))\(cause) lifted\n")
        }
        if let learned {
            Program.printOut("\(origin): learned rate of \(OriginRecord.format(rate: learned))/s forgotten\n")
        }
        var made = 0
        ControlSession.forEachItem(spool, [.new]) { item in
            guard item.operation?.origin == origin, (item.dueSeconds ?? 0) > nowSeconds else { return true }
            do throws(ControlError) {
                if try spool.sendNow(item) != nil {
                    Program.printOut("\(item.id): due now\n")
                    made += 1
                }
            } catch {
                report(error)
            }
            return true
        }
        Program.printOut("\(origin): \(made) deferred operation(s) due now\n")
    }
}
