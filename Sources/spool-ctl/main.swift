import Glibc
import Spool

let program = "spool-ctl"
let usage = "spool-ctl [--spool DIR] list|show|stats|retry|discard|check [OPTIONS]"
let helps: [String: String] = [
    "": """
        OVERVIEW: Look at and act on the operations in a spool (like mailq, postqueue and postsuper).

        USAGE: spool-ctl [--spool DIR] <subcommand> [OPTIONS]

        OPTIONS:
          --spool DIR             The spool directory (default: $SPOOL_DIR, else ./spool).
          -h, --help              Show help information.

        SUBCOMMANDS:
          list                    One line per operation, oldest first.
          show                    One operation in full: document, retry state and reason.
          stats                   Counts, oldest pending age, next due time, bytes on disk.
          retry                   Move operations from failed/ or conflict/ back to new/, or send deferred ones now.
          discard                 Remove operations for good.
          check                   Verify the spool and report what is wrong; exit 0 only when healthy.

          See 'spool-ctl <subcommand> --help' for the options of each.

        """,
    "list": """
        OVERVIEW: List operations, oldest first: id, state, attempts, next attempt, method, URL, key, age, reason.

        USAGE: spool-ctl [--spool DIR] list [new|cur|failed|conflict|all] [--json]

        ARGUMENTS:
          new|cur|failed|conflict|all   Which folder to list (default: all).

        OPTIONS:
          --json                  One JSON object per line, with stable field names, for jq.
          -h, --help              Show help information.

        """,
    "show": """
        OVERVIEW: Show one operation: its document, retry state and, when filed, its reason.

        USAGE: spool-ctl [--spool DIR] show ID [--json]

        ARGUMENTS:
          ID                      An operation id, or a path such as spool/conflict/ID.

        OPTIONS:
          --json                  One JSON object.
          -h, --help              Show help information.

        """,
    "stats": """
        OVERVIEW: Count operations per folder, with the oldest pending age, next due time and bytes on disk.

        USAGE: spool-ctl [--spool DIR] stats [--json | --prometheus]

        OPTIONS:
          --json                  One JSON object.
          --prometheus            The node_exporter textfile format, for a cron line feeding monitoring.
          -h, --help              Show help information.

        """,
    "retry": """
        OVERVIEW: Move operations from failed/ or conflict/ back to new/ with no attempts, keeping their
        idempotency key; or clear the retry time of deferred operations in new/.

        USAGE: spool-ctl [--spool DIR] retry ID... | --all-failed | --all-conflict [--if-match ETAG] [--now]

        ARGUMENTS:
          ID                      An operation id, or a path such as spool/conflict/ID.

        OPTIONS:
          --all-failed            Every operation in failed/.
          --all-conflict          Every operation in conflict/.
          --if-match ETAG         Replace the stale version with ETAG (after looking at the server);
                                  the operation also gets a new idempotency key, being a new request.
          --now                   Clear the retry time of deferred operations in new/ (all, without IDs).
          -h, --help              Show help information.

        """,
    "discard": """
        OVERVIEW: Remove operations for good, with their reasons. Asks first on a terminal.

        USAGE: spool-ctl [--spool DIR] discard ID... [--yes]

        ARGUMENTS:
          ID                      An operation id, or a path such as spool/failed/ID.

        OPTIONS:
          --yes                   Do not ask.
          -h, --help              Show help information.

        """,
    "check": """
        OVERVIEW: Verify the spool: layout, modes, stale claims, unreadable files, stray files in the spool root.
        Prints one line per problem; exit status 0 only when the spool is healthy.

        USAGE: spool-ctl [--spool DIR] check

        OPTIONS:
          -h, --help              Show help information.

        """,
]

var arguments = Arguments()
var spoolOption: String?
var subcommand: String?
var positionals: [String] = []
var flags = Set<String>()
var ifMatch: String?

do throws(UsageError) {
    while let token = arguments.next() {
        switch token {
        case .option("-h"), .option("--help"):
            Program.printOut(helps[subcommand ?? ""]!)
            exit(0)
        case .option("--spool"): spoolOption = try arguments.value(for: "--spool")
        case .option("--if-match"):
            guard subcommand == "retry" else { throw .unknownOption("--if-match") }
            ifMatch = try arguments.value(for: "--if-match")
        case let .option(name):
            let allowed: [String: Set<String>] = [
                "list": ["--json"], "show": ["--json"], "stats": ["--json", "--prometheus"],
                "retry": ["--all-failed", "--all-conflict", "--now"], "discard": ["--yes"],
            ]
            guard let subcommand, allowed[subcommand]?.contains(name) == true else { throw .unknownOption(name) }
            try arguments.noValue(for: name)
            flags.insert(name)
        case let .positional(value):
            if subcommand == nil {
                guard helps[value] != nil, !value.isEmpty else { throw .unexpectedArgument(value) }
                subcommand = value
            } else {
                positionals.append(value)
            }
        }
    }
    guard let subcommand else { throw .missingArgument("subcommand") }
    if flags.contains("--json") && flags.contains("--prometheus") { throw .conflicting("--json", "--prometheus") }
    switch subcommand {
    case "list":
        if positionals.count > 1 { throw .unexpectedArgument(positionals[1]) }
        if let which = positionals.first, which != "all", Spool.Folder(rawValue: which) == nil || which == "tmp" {
            throw .invalidValue(option: "list", value: which, expected: "new, cur, failed, conflict or all")
        }
    case "show":
        if positionals.isEmpty { throw .missingArgument("ID") }
        if positionals.count > 1 { throw .unexpectedArgument(positionals[1]) }
    case "retry":
        let bulk = flags.contains("--all-failed") || flags.contains("--all-conflict")
        if positionals.isEmpty && !bulk && !flags.contains("--now") { throw .missingArgument("ID") }
        if !positionals.isEmpty && bulk { throw .conflicting("ID", flags.contains("--all-failed") ? "--all-failed" : "--all-conflict") }
    case "discard":
        if positionals.isEmpty { throw .missingArgument("ID") }
    default:
        if let first = positionals.first { throw .unexpectedArgument(first) }
    }
} catch {
    Program.usageFailure(program, error, usage: usage)
}

let spool: Spool
do { spool = try Spool(path: Spool.defaultPath(option: spoolOption)) } catch {
    Program.fail(program, error.description, code: error.exitCode)
}
let now = Timestamp.now()
var status: Int32 = 0

@MainActor func report(_ error: ControlError) {
    Program.printError("\(program): error: \(error)\n")
    if status == 0 { status = error.exitCode }
}

@MainActor func find(_ argument: String) -> QueueItem? {
    do {
        guard let item = try spool.locate(argument) else {
            report(.notFound(argument))
            return nil
        }
        return item
    } catch {
        report(.io(path: spool.path, error as? Errno ?? Errno(rawValue: EIO)))
        return nil
    }
}

@MainActor func inventory(_ folders: [Spool.Folder]) -> [QueueItem] {
    do { return try spool.inventory(folders) } catch {
        Program.fail(program, "cannot list \(spool.path): \(error)", code: ExitCode.ioError)
    }
}

func table(_ rows: [[String]]) -> String {
    guard let first = rows.first else { return "" }
    var widths = [Int](repeating: 0, count: first.count)
    for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
    return rows.map { row in
        row.enumerated().map { i, cell in i == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[i] - cell.count + 2) }.joined()
    }.joined(separator: "\n") + "\n"
}

switch subcommand! {
case "list":
    let which = positionals.first ?? "all"
    let folders: [Spool.Folder] = which == "all" ? [.new, .cur, .failed, .conflict] : [Spool.Folder(rawValue: which)!]
    let items = inventory(folders)
    if flags.contains("--json") {
        Program.printOut(items.map { $0.json(now: now).text + "\n" }.joined())
    } else if !items.isEmpty {
        var rows = [["ID", "STATE", "ATTEMPTS", "NEXT", "METHOD", "URL", "KEY", "AGE", "REASON"]]
        for item in items {
            let key = item.operation.map { $0.key == $0.url ? "-" : $0.key } ?? "-"
            rows.append([item.id, item.stateWord(now: now), String(item.attempts), item.due.map(Timestamp.formatRFC3339) ?? "-",
                         item.operation?.method ?? "?", item.operation?.url ?? "?", key, humanDuration(item.age(now: now)),
                         item.reasonLine ?? item.lastError ?? "-"])
        }
        Program.printOut(table(rows))
    }
case "show":
    guard let item = find(positionals[0]) else { break }
    if flags.contains("--json") {
        Program.printOut(item.json(now: now, full: true).text + "\n")
        break
    }
    var rows: [[String]] = [
        ["id:", item.id], ["state:", "\(item.stateWord(now: now)) (\(item.folder.rawValue)/)"], ["file:", spool.displayPath(item.folder, item.fileName)],
        ["attempts:", String(item.attempts)],
    ]
    if let due = item.due { rows.append(["next attempt:", Timestamp.formatRFC3339(due)]) }
    if let last = item.lastError { rows.append(["last error:", last]) }
    rows.append(["enqueued:", "\(Timestamp.formatRFC3339(item.order / 1_000_000)) (\(humanDuration(item.age(now: now))) ago)"])
    if let claim = item.claim { rows.append(["claimed by:", "pid \(claim.owner.pid) on \(claim.owner.host) since \(Timestamp.formatRFC3339(claim.since))"]) }
    if let operation = item.operation {
        rows.append(["request:", "\(operation.method) \(operation.url)"])
        if operation.key != operation.url { rows.append(["key:", operation.key]) }
    }
    if let problem = item.problem { rows.append(["problem:", problem]) }
    for (field, value) in item.reason where field != "id" && field != "folder" { rows.append(["why \(field):", value]) }
    var out = table(rows)
    if let document = item.operation?.document { out += "document:\n  \(document.text)\n" }
    Program.printOut(out)
case "stats":
    do {
        let stats = try SpoolStats(spool: spool, now: now)
        if flags.contains("--json") { Program.printOut(stats.json.text + "\n") }
        else if flags.contains("--prometheus") { Program.printOut(stats.prometheus(spool: spool.path)) }
        else { Program.printOut(stats.text) }
    } catch {
        Program.fail(program, "cannot read \(spool.path): \(error)", code: ExitCode.ioError)
    }
case "retry":
    var items: [QueueItem] = []
    if flags.contains("--all-failed") { items += inventory([.failed]) }
    if flags.contains("--all-conflict") { items += inventory([.conflict]) }
    items += positionals.compactMap(find)
    if positionals.isEmpty && items.isEmpty && flags.contains("--now") { items = inventory([.new]).filter { ($0.due ?? 0) > 0 } }
    for item in items {
        do {
            if item.folder == .new && flags.contains("--now") {
                if try spool.sendNow(item) != nil { Program.printOut("\(item.id): due now\n") }
            } else {
                _ = try spool.retry(item, ifMatch: ifMatch)
                Program.printOut("\(item.id): back in new/\(ifMatch.map { " with If-Match \($0)" } ?? "")\n")
            }
        } catch {
            report(error)
        }
    }
case "discard":
    let interactive = isatty(STDIN_FILENO) != 0 && !flags.contains("--yes")
    for item in positionals.compactMap(find) {
        if interactive {
            Program.printError("discard \(item.id) from \(item.folder.rawValue)/? [y/N] ")
            guard let answer = readLine(), answer.lowercased().hasPrefix("y") else { continue }
        }
        do {
            try spool.discard(item)
            Program.printOut("\(item.id): discarded\n")
        } catch {
            report(error)
        }
    }
case "check":
    do {
        let check = try SpoolCheck(spool: spool, now: now)
        for finding in check.findings { Program.printOut("\(finding.path): \(finding.problem)\n") }
        if check.findings.isEmpty { Program.printOut("\(spool.path): ok\n") } else { status = ExitCode.failure }
    } catch {
        Program.fail(program, "cannot read \(spool.path): \(error)", code: ExitCode.ioError)
    }
default:
    break
}
exit(status)
