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

/// The subcommands that move filed operations back or away: `retry` (also `--now` and `--if-match`) and
/// `discard`, one id at a time or in bulk, asking first on a terminal.
extension ControlSession {
    /// `spool-ctl retry`: the ids given, the bulk folders, or with `--now` alone every deferred operation in `new/`.
    package mutating func retry() {
        let flags = command.flags, bulk = bulkFolders
        var acted = false
        if !bulk.isEmpty {
            ControlSession.forEachItem(spool, bulk) { item in
                guard selected(item) else { return true }
                retry(item)
                acted = true
                return true
            }
        }
        for argument in givenIDs {
            if let item = find(argument) {
                retry(item)
                acted = true
            }
        }
        if command.positionals.isEmpty && !acted && flags.contains("--now") {
            ControlSession.forEachItem(spool, [.new]) { item in
                if (item.dueSeconds ?? 0) > 0 { retry(item) }
                return true
            }
        }
    }

    /// The folders `--all-failed` and `--all-conflict` name: acted on as the listing reads each operation,
    /// in bounded memory over any number of them.
    package var bulkFolders: [Spool.Folder] {
        let named = [("--all-failed", Spool.Folder.failed), ("--all-conflict", .conflict)]
            .filter { command.flags.contains($0.0) }.map(\.1)
        // list's filters alone select among every filed operation.
        if named.isEmpty, command.filtered { return [.failed, .conflict] }
        return named
    }

    /// The ids given: the arguments, where `-` stands for ids read from standard input, one a line (as
    /// `postsuper -d -`), so that `spool-ctl list failed --json | jq -r .id | spool-ctl retry -` works.
    package var givenIDs: [String] {
        command.positionals.flatMap { argument -> [String] in
            guard argument == "-" else { return [argument] }
            var ids: [String] = []
            while let line = readLine() {
                let id = line.trimmingWhitespace()
                if !id.isEmpty { ids.append(id) }
            }
            return ids
        }
    }

    /// `retry` of one operation.
    package mutating func retry(_ item: QueueItem) {
        do {
            if item.folder == .new && command.flags.contains("--now") {
                if try spool.sendNow(item) != nil { Program.printOut("\(item.id): due now\n") }
            } else {
                _ = try spool.retry(item, ifMatch: command.ifMatch)
                Program.printOut("\(item.id): back in new/\(command.ifMatch.map { " with If-Match \($0)" } ?? "")\n")
            }
        } catch {
            report(error)
        }
    }

    /// `spool-ctl discard`: removes the ids given or every operation of the bulk folders, asking first on a terminal.
    package mutating func discard() {
        let interactive = isatty(STDIN_FILENO) != 0 && !command.flags.contains("--yes")
        let bulk = bulkFolders
        if !bulk.isEmpty {
            // One question for the lot, as the count is not known before the listing streams.
            if interactive
                && !ControlSession.confirm(
                    "discard every operation in \(bulk.map { $0.rawValue + "/" }.joined(separator: " and "))?")
            {
                return
            }
            ControlSession.forEachItem(spool, bulk) { item in
                if selected(item) { discard(item) }
                return true
            }
        }
        // Ids read from standard input leave no terminal to ask on: they were chosen already.
        let asks = interactive && !command.positionals.contains("-")
        for argument in givenIDs {
            guard let item = find(argument) else { continue }
            if asks && !ControlSession.confirm("discard \(item.id) from \(item.folder.rawValue)/?") { continue }
            discard(item)
        }
    }

    /// `discard` of one operation.
    mutating func discard(_ item: QueueItem) {
        do {
            try spool.discard(item)
            Program.printOut("\(item.id): discarded\n")
        } catch {
            report(error)
        }
    }

    /// Asks on the terminal; true for an answer starting with y.
    static func confirm(_ question: String) -> Bool {
        Program.printError(question + " [y/N] ")
        guard let answer = readLine() else { return false }
        return answer.lowercased().hasPrefix("y")
    }
}
