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

/// One run of `spool-ctl` on an open spool: each subcommand, and the exit status they add up to.
package struct ControlSession {
    /// The parsed command line.
    package let command: ControlCommand
    /// The spool the subcommands act on.
    package let spool: Spool
    /// The session's time (epoch seconds), against which ages, due times and states are judged.
    package let nowSeconds: Int64
    /// 0, or the status of the first error reported.
    package var status: Int32 = 0

    /// The program name in messages.
    package var program: String { ControlCommand.program }

    /// A session of `command` on `spool`, at `nowSeconds`.
    package init(command: ControlCommand, spool: Spool, nowSeconds: Int64) {
        (self.command, self.spool, self.nowSeconds) = (command, spool, nowSeconds)
    }

    /// Prints `error` to standard error; its exit status becomes the session's unless an earlier error set one.
    package mutating func report(_ error: ControlError) {
        Program.printError("\(program): error: \(error)\n")
        if status == 0 { status = error.exitCode }
    }

    /// The operation `argument` names (an id or a path), or nil once it has reported why not (none, or an I/O error).
    package mutating func find(_ argument: String) -> QueueItem? {
        do {
            // An id, a path, or else the start of one id (as git takes a commit's).
            guard let item = try spool.locate(argument) ?? spool.locate(prefix: argument) else {
                report(.notFound(argument))
                return nil
            }
            return item
        } catch let ambiguous as AmbiguousID {
            report(.ambiguous(ambiguous.description))
            return nil
        } catch {
            report(.io(path: spool.path, error as? Errno ?? Errno(rawValue: EIO)))
            return nil
        }
    }

    /// Every operation in `folders` of `spool`, oldest first, one at a time (bounded memory); `body` returns
    /// false to stop. A spool that cannot be listed ends the program (74).
    package static func forEachItem(_ spool: Spool, _ folders: [Spool.Folder], _ body: (QueueItem) -> Bool) {
        do { try spool.forEachItem(folders, body) } catch {
            Program.fail(ControlCommand.program, "cannot list \(spool.path): \(error)", code: ExitCode.ioError)
        }
    }

    /// How many rows set the columns' widths before the listing streams: the rest keep them.
    package static let widthRows = 256

    /// Prints as it reads: the first lines after one listing of the spool, whatever its size.
    package func list() {
        let which = command.positionals.first ?? "all"
        let folders: [Spool.Folder] =
            which == "all" ? [.new, .cur, .failed, .conflict] : [Spool.Folder(rawValue: which)!]
        let records = originRecords()
        var order = KeyOrder()
        if command.flags.contains("--json") {
            ControlSession.forEachItem(spool, folders) { item in
                let waiting = wait(item, records, &order)
                guard selected(item) else { return true }
                var item = item
                item.waitsFor = waiting?.why
                Program.printOut(item.json(nowSeconds: nowSeconds).text + "\n")
                return true
            }
            return
        }
        var rows = [["ID", "STATE", "ATTEMPTS", "NEXT", "METHOD", "URL", "KEY", "AGE", "BY", "REASON"]]
        var widths: [Int]?
        ControlSession.forEachItem(spool, folders) { item in
            let waiting = wait(item, records, &order)
            guard selected(item) else { return true }
            rows.append(row(item, waiting: waiting))
            if let widths {
                Program.printOut(ControlSession.table(rows, widths: widths))
                rows.removeAll(keepingCapacity: true)
            } else if rows.count > ControlSession.widthRows {
                widths = ControlSession.widths(rows)
                Program.printOut(ControlSession.table(rows, widths: widths!))
                rows.removeAll(keepingCapacity: true)
            }
            return true
        }
        if widths == nil, rows.count > 1 { Program.printOut(ControlSession.table(rows)) }
        // On a terminal an empty listing says so, as mailq's "Mail queue is empty"; a script reads nothing.
        if widths == nil, rows.count == 1, isatty(STDOUT_FILENO) != 0 {
            let filtered = command.filtered ? " that the filters select" : ""
            Program.printOut(
                which == "all" ? "the spool is empty\(filtered)\n" : "no operation in \(which)/\(filtered)\n")
        }
    }

    /// Whether `list`'s filters keep `item`: `--origin`, `--older-than` and `--last-error`.
    package func selected(_ item: QueueItem) -> Bool {
        if let origin = command.origin, item.operation?.origin != origin { return false }
        if let olderThan = command.olderThan, item.age(nowSeconds: nowSeconds) < olderThan { return false }
        if let wanted = command.lastError, !wanted.matches(item.lastError) { return false }
        return true
    }

    /// What `list` shows an operation does: its URL (with its payload's size, never its bytes), or its job.
    package static func target(_ operation: Operation) -> String {
        guard operation.handler == nil else { return operation.summary }
        return operation.url + (operation.payload.map { " (payload \(humanSize(Int($0.length))))" } ?? "")
    }

    /// One line of `list`; `waiting`: what its origin holds it back for, which then says when and why.
    package func row(_ item: QueueItem, waiting: (until: Int64?, why: String)? = nil) -> [String] {
        let key = item.operation.map { $0.key == $0.url ? "-" : $0.key } ?? "-"
        let next = max(item.dueSeconds ?? 0, waiting?.until ?? 0)
        return [
            item.id, item.stateWord(nowSeconds: nowSeconds), String(item.attempts),
            next > 0 ? Timestamp.formatRFC3339(next) : "-",
            item.operation?.method ?? "?", item.operation.map(ControlSession.target) ?? "?", key,
            humanDuration(item.age(nowSeconds: nowSeconds)), item.producerName ?? "?",
            item.reasonLine ?? waiting.map { "waits for " + $0.why } ?? item.lastError ?? "-"
        ]
    }

    /// `spool-ctl show ID`: one operation in full, as aligned fields (a conflict's versions after) or `--json`.
    package mutating func show() {
        guard var item = find(command.positionals[0]) else { return }
        if item.folder != .conflict, command.flags.contains("--diff") {
            report(.notConflict(id: item.id, folder: item.folder))
            return
        }
        if item.folder == .conflict, command.flags.contains("--diff") { return showVersions(item) }
        // A waiting or claimed operation tried before: what its last deferral said in full.
        if item.folder == .new || item.folder == .cur, item.attempts > 0 { item.reason = spool.deferral(of: item.id) }
        item.waitsFor = waitOfOne(item)
        if command.flags.contains("--json") {
            Program.printOut(item.json(nowSeconds: nowSeconds, full: true).text + "\n")
            return
        }
        var rows: [[String]] = [
            ["id:", item.id], ["state:", "\(item.stateWord(nowSeconds: nowSeconds)) (\(item.folder.rawValue)/)"],
            ["file:", spool.displayPath(item.folder, item.fileName)],
            ["attempts:", String(item.attempts)]
        ]
        if let producer = item.producer {
            rows.append(["dropped by:", UserDatabase.display(producer)])
        }
        if let due = item.dueSeconds { rows.append(["next attempt:", Timestamp.formatRFC3339(due)]) }
        if let waiting = item.waitsFor { rows.append(["waits for:", waiting]) }
        if let last = item.lastError { rows.append(["last error:", last]) }
        rows.append([
            "enqueued:",
            "\(Timestamp.formatRFC3339(item.orderMicroseconds / 1_000_000)) "
                + "(\(humanDuration(item.age(nowSeconds: nowSeconds))) ago)"
        ])
        if let claim = item.claim {
            rows.append([
                "claimed by:",
                "pid \(claim.owner.pid) on \(claim.owner.host) since \(Timestamp.formatRFC3339(claim.since))"
            ])
        }
        if let operation = item.operation {
            rows.append(operation.handler == nil ? ["request:", operation.summary] : ["job:", operation.summary])
            if operation.key != operation.url { rows.append(["key:", operation.key]) }
            // A payload's size, never its bytes: it may be binary, and gigabytes long.
            if let payload = operation.payload {
                let size = humanSize(Int(payload.length))
                rows.append(["payload:", payload.length < 1024 ? size : "\(size) (\(payload.length) bytes)"])
            }
        }
        if let problem = item.problem { rows.append(["problem:", problem]) }
        for (field, value) in item.reason.fields where !["id", "folder", "dropped-by"].contains(field) {
            rows.append(["why \(field):", value])
        }
        var out = ControlSession.table(rows)
        if let document = item.operation?.document { out += "document:\n  \(document.text)\n" }
        Program.printOut(out.replacingControlCharacters(keepingLines: true))
        if item.folder == .conflict { showVersions(item) }
    }

    /// `spool-ctl stats`: the spool's counts as text, `--json` or `--prometheus`, on standard output or, with
    /// `--output`, as a file replaced at once (node_exporter's textfile collector reads it from a timer's run);
    /// an unreadable spool ends it (74), and so does a file that cannot be written (73).
    package func stats() {
        let text: String
        do {
            let stats = try SpoolStats(spool: spool, nowSeconds: nowSeconds)
            if command.flags.contains("--json") { text = stats.json.text + "\n" }
            else if command.flags.contains("--prometheus") { text = stats.prometheus(spool: spool.path) }
            else { text = stats.text.replacingControlCharacters(keepingLines: true) }
        } catch {
            Program.fail(program, "cannot read \(spool.path): \(error)", code: ExitCode.ioError)
        }
        guard let output = command.output else { return Program.printOut(text) }
        do throws(Errno) { try FileDescriptor.writeReplacing(output, Array(text.utf8)) } catch {
            Program.fail(program, "cannot write \(output): \(error)", code: ExitCode.cannotCreate)
        }
    }

    mutating func check() {
        do {
            let check = try SpoolCheck(spool: spool, nowSeconds: nowSeconds)
            for finding in check.findings { Program.printOut("\(finding.path): \(finding.problem)\n") }
            if check.findings.isEmpty { Program.printOut("\(spool.path): ok\n") } else { status = ExitCode.failure }
        } catch {
            Program.fail(program, "cannot read \(spool.path): \(error)", code: ExitCode.ioError)
        }
        checkConfiguration()
    }

    /// Validates spool.conf(5) as spool-send would read it, when `--config` or `SPOOL_CONFIG` names one, and
    /// what spool-send reads at send time: the TLS files, the auth profiles and the handler directory. Any
    /// problem there makes the status 78 (EX_CONFIG), as it stops spool-send.
    mutating func checkConfiguration() {
        let path = SpoolConfiguration.defaultPath(option: command.configurationPath)
        var configuration: SpoolConfiguration?
        if let path {
            do {
                configuration = try SpoolConfiguration.load(path: path)
                Program.printOut("\(path): ok (\(configuration!.origins.count) origin section(s))\n")
            } catch {
                Program.printOut("\(error)\n")
                status = ExitCode.configuration
            }
        }
        let credentials = Credentials.defaultDirectory(option: command.authDirectory).map(Credentials.init(directory:))
        let handlers = HandlerDirectory.defaultPath(
            option: command.handlerDirectory, configured: configuration?.handlerDirectory
        )
        .map(HandlerDirectory.init(path:))
        let setup = SetupCheck(configuration: configuration, path: path, credentials: credentials, handlers: handlers)
        for finding in setup.findings { Program.printOut("\(finding.path): \(finding.problem)\n") }
        if !setup.findings.isEmpty { status = ExitCode.configuration }
        if setup.findings.isEmpty {
            if let credentials {
                Program.printOut("\(credentials.directory): ok (\(credentials.profileNames().count) auth profile(s))\n")
            }
            if let handlers { Program.printOut("\(handlers.path): ok (handler directory)\n") }
        }
    }
}

extension ControlCommand {
    /// Carries out the command on its spool and returns the exit status.
    package func run() -> Int32 {
        let spool: Spool
        let path = Spool.defaultPath(option: self.spool)
        // Only `init` makes a spool: a reader pointed at a mistyped path says so instead of making one.
        let existed = subcommand == "init" && (try? Spool(path: path, create: false)) != nil
        do { spool = try Spool(path: path, create: subcommand == "init") } catch {
            Program.fail(ControlCommand.program, error.description, code: error.exitCode)
        }
        var session = ControlSession(command: self, spool: spool, nowSeconds: Timestamp.nowSeconds())
        switch subcommand {
        case "init": Program.printOut(existed ? "\(path): already a spool\n" : "\(path): spool created\n")
        case "list": session.list()
        case "show": session.show()
        case "stats": session.stats()
        case "retry": session.retry()
        case "resolve": session.resolve()
        case "pending": session.pending()
        case "discard": session.discard()
        case "flush": session.flush()
        case "shape": session.shape()
        case "hold": session.hold()
        case "release": session.release()
        case "check": session.check()
        default: break
        }
        // A producer's entry that a move back into new/ set out of its way (`Spool.setAside`).
        for line in spool.users.takeSetAsideNotes() {
            Program.printError("\(ControlCommand.program): warning: \(line)\n")
        }
        return session.status
    }
}
