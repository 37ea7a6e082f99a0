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

/// The command line of `spool-ctl`: which subcommand, on which operations, with which flags.
package struct ControlCommand: ParsedCommand, Sendable {
    /// The program name in messages.
    package static let program = "spool-ctl"
    /// One-line usage for errors.
    package static let usage =
        "spool-ctl [--spool DIR] "
        + "init|list|shape|show|stats|retry|flush|hold|release|resolve|discard|pending|check|cgi [OPTIONS]"

    /// `--spool`, if given.
    package var spool: String?
    /// The subcommand.
    package var subcommand = ""
    /// Its arguments (ids, a folder).
    package var positionals: [String] = []
    /// Its flags (`--json`, `--yes`, …).
    package var flags = Set<String>()
    /// `retry --if-match`.
    package var ifMatch: String?
    /// `check --config`: the spool.conf(5) to validate.
    package var configurationPath: String?
    /// `--origin`: the one origin `flush` and `list` act on, as `Operation.origin` writes it.
    package var origin: String?
    /// `hold --key` and `release --key`: the ordering key whose waiting operations to act on.
    package var key: String?
    /// `pending --url-prefix`: only writes whose URL starts so.
    package var urlPrefix: String?
    /// `--older-than`: only operations enqueued at least this many seconds ago.
    package var olderThan: Int64?
    /// `--last-error`: only operations whose last attempt ended so (`LastError`).
    package var lastError: LastError?
    /// `check --auth-dir`: the auth profiles to validate.
    package var authDirectory: String?
    /// `check --handler-dir`: the handler directory to validate.
    package var handlerDirectory: String?
    /// `stats --output FILE`: where to write the counts instead of standard output, replacing the file at once.
    package var output: String?
    /// The help text asked for with `-h`, if any.
    package var help: String?

    /// The flags each subcommand takes, by subcommand; any other is an unknown option.
    package static let allowedFlags: [String: Set<String>] = [
        "list": ["--json"], "show": ["--json", "--diff"], "stats": ["--json", "--prometheus"],
        "resolve": ["--keep-mine", "--keep-theirs", "--edit"], "pending": ["--json"],
        "retry": ["--all-failed", "--all-conflict", "--now"], "discard": ["--all-failed", "--all-conflict", "--yes"],
        "flush": ["--yes"], "shape": [], "hold": [], "release": []
    ]

    /// The subcommands that take list's filters: `--origin`, `--older-than`, `--last-error`.
    package static let filtering: Set<String> = ["list", "retry", "discard", "hold", "release"]

    /// Whether a filter of list's was given.
    package var filtered: Bool { origin != nil || olderThan != nil || lastError != nil }

    /// The first filter given, for messages.
    package var firstFilter: String {
        origin != nil ? "--origin" : olderThan != nil ? "--older-than" : "--last-error"
    }

    /// Parses `spool-ctl`'s arguments.
    package init(parsing tokens: [String]) throws(UsageError) {
        var arguments = Arguments(tokens)
        var chosen: String?
        while let token = arguments.next() {
            switch token {
            case .option("-h"), .option("--help"):
                help = ControlCommand.helps[chosen ?? ""]!
                return
            case .option("--spool"): spool = try arguments.value(for: "--spool")
            case .option("--if-match"):
                guard chosen == "retry" else { throw .unknownOption("--if-match") }
                ifMatch = try arguments.value(for: "--if-match")
            case .option("--config"):
                guard chosen == "check" else { throw .unknownOption("--config") }
                configurationPath = try arguments.value(for: "--config")
            case .option("--origin"):
                guard chosen == "flush" || ControlCommand.filtering.contains(chosen ?? "") else {
                    throw .unknownOption("--origin")
                }
                let text = try arguments.value(for: "--origin")
                guard let origin = try? Operation.origin(of: text), ControlCommand.isBareOrigin(text) else {
                    throw .invalidValue(
                        option: "--origin", value: text,
                        expected: "an origin such as https://api.example.com or http://127.0.0.1:8080")
                }
                self.origin = origin
            case .option("--key"):
                guard ["hold", "release", "pending"].contains(chosen) else { throw .unknownOption("--key") }
                let value = try arguments.value(for: "--key")
                guard !value.isEmpty else {
                    throw .invalidValue(option: "--key", value: value, expected: "an ordering key, as list shows it")
                }
                key = value
            case .option("--url-prefix"):
                guard chosen == "pending" else { throw .unknownOption("--url-prefix") }
                let value = try arguments.value(for: "--url-prefix")
                guard value.hasPrefix("http://") || value.hasPrefix("https://") else {
                    throw .invalidValue(
                        option: "--url-prefix", value: value, expected: "the start of an http:// or https:// URL")
                }
                urlPrefix = value
            case .option("--last-error"):
                guard ControlCommand.filtering.contains(chosen ?? "") else { throw .unknownOption("--last-error") }
                let text = try arguments.value(for: "--last-error")
                guard let wanted = LastError(text) else {
                    throw .invalidValue(
                        option: "--last-error", value: text,
                        expected: "an HTTP status (503), a class of them (5xx) or an error as list shows it (timeout)")
                }
                lastError = wanted
            case .option("--older-than"):
                guard ControlCommand.filtering.contains(chosen ?? "") else { throw .unknownOption("--older-than") }
                let text = try arguments.value(for: "--older-than")
                guard let seconds = Timestamp.parseDuration(text) else {
                    throw .invalidValue(
                        option: "--older-than", value: text, expected: "a duration such as 30m, 4h or 2d")
                }
                olderThan = seconds
            case .option("--output"):
                guard chosen == "stats" else { throw .unknownOption("--output") }
                output = try arguments.value(for: "--output")
            case let .option(name) where name == "--auth-dir" || name == "--handler-dir":
                guard chosen == "check" else { throw .unknownOption(name) }
                let value = try arguments.value(for: name)
                if name == "--auth-dir" { authDirectory = value } else { handlerDirectory = value }
            case let .option(name):
                guard let chosen, ControlCommand.allowedFlags[chosen]?.contains(name) == true else {
                    throw .unknownOption(name)
                }
                try arguments.noValue(for: name)
                flags.insert(name)
            case let .positional(value):
                if chosen == nil {
                    guard ControlCommand.helps[value] != nil, !value.isEmpty else { throw .unexpectedArgument(value) }
                    chosen = value
                } else {
                    positionals.append(value)
                }
            }
        }
        guard let chosen else { throw .missingArgument("subcommand") }
        subcommand = chosen
        try validate()
    }

    /// Whether a URL names nothing past its origin (a trailing `/` at most): `--origin` takes no path.
    package static func isBareOrigin(_ text: String) -> Bool {
        guard let scheme = text.firstRange(of: "://") else { return false }
        let rest = text[scheme.upperBound...].drop { $0 != "/" && $0 != "?" && $0 != "#" }
        return rest.isEmpty || rest == "/"
    }

    /// The checks that need the whole command line.
    package func validate() throws(UsageError) {
        if flags.contains("--json") && flags.contains("--prometheus") { throw .conflicting("--json", "--prometheus") }
        if flags.contains("--json") && flags.contains("--diff") { throw .conflicting("--json", "--diff") }
        switch subcommand {
        case "list", "shape":
            if positionals.count > 1 { throw .unexpectedArgument(positionals[1]) }
            if let which = positionals.first, which != "all", !(subcommand == "shape" && which == "waiting"),
                Spool.Folder(rawValue: which) == nil || which == "tmp"
            {
                throw .invalidValue(
                    option: subcommand, value: which,
                    expected: subcommand == "shape"
                        ? "waiting, new, cur, failed, conflict or all" : "new, cur, failed, conflict or all")
            }
        case "pending":
            if let first = positionals.first { throw .unexpectedArgument(first) }
            if key != nil && urlPrefix != nil { throw .conflicting("--key", "--url-prefix") }
        case "flush":
            if let first = positionals.first { throw .unexpectedArgument(first) }
            if origin == nil { throw .missingArgument("--origin ORIGIN") }
        case "hold", "release":
            // One way to choose: ids, or the waiting operations the filters (and --key) select.
            let filters = filtered || key != nil
            if positionals.isEmpty && !filters {
                throw .missingArgument("ID, --origin ORIGIN, --key KEY, --older-than DURATION or --last-error ERROR")
            }
            if !positionals.isEmpty && filters { throw .conflicting("ID", key != nil ? "--key" : firstFilter) }
        case "show", "resolve":
            if positionals.isEmpty { throw .missingArgument("ID") }
            if positionals.count > 1 { throw .unexpectedArgument(positionals[1]) }
            let choices = ["--keep-mine", "--keep-theirs", "--edit"].filter { flags.contains($0) }
            if subcommand == "resolve", choices.isEmpty {
                throw .missingArgument("--keep-mine, --keep-theirs or --edit")
            }
            if choices.count > 1 { throw .conflicting(choices[0], choices[1]) }
        case "retry", "discard":
            // The filters of list select among the filed operations, as the bulk flags do.
            let bulk = flags.contains("--all-failed") || flags.contains("--all-conflict") || filtered
            if positionals.isEmpty && !bulk && !flags.contains("--now") {
                throw .missingArgument(
                    "ID, --all-failed, --all-conflict, --origin ORIGIN, --older-than DURATION or --last-error ERROR")
            }
            if !positionals.isEmpty && bulk {
                let chosen = ["--all-failed", "--all-conflict"].first { flags.contains($0) }
                throw .conflicting("ID", chosen ?? firstFilter)
            }
            // Each resource has its own version: one ETag over many operations would silently lift the
            // conflict protection of every write it does not belong to.
            if ifMatch != nil && (bulk || positionals.count > 1) {
                throw .invalidValue(
                    option: "--if-match", value: ifMatch!,
                    expected: "one operation ID: each resource has its own version, so give one retry --if-match per id"
                )
            }
            if ifMatch != nil && flags.contains("--now") { throw .conflicting("--if-match", "--now") }
        default:
            if let first = positionals.first { throw .unexpectedArgument(first) }
        }
    }

    /// The help text to print instead of running, when `-h` was given.
    package var helpText: String? { help }

    /// Every subcommand's help: a mistyped option is matched against all their options.
    package static var allHelp: String { helps.values.joined(separator: "\n") }
}
