import Glibc

/// The command line of `spool-ctl`: which subcommand, on which operations, with which flags.
public struct ControlCommand: ParsedCommand, Sendable {
    /// The program name in messages.
    public static let program = "spool-ctl"
    /// One-line usage for errors.
    public static let usage = "spool-ctl [--spool DIR] init|list|show|stats|retry|discard|check [OPTIONS]"

    /// `--spool`, if given.
    public var spool: String?
    /// The subcommand.
    public var subcommand = ""
    /// Its arguments (ids, a folder).
    public var positionals: [String] = []
    /// Its flags (`--json`, `--yes`, …).
    public var flags = Set<String>()
    /// `retry --if-match`.
    public var ifMatch: String?
    /// `check --config`: the spool.conf(5) to validate.
    public var configurationPath: String?
    /// `check --auth-dir`: the auth profiles to validate.
    public var authDirectory: String?
    /// `check --handler-dir`: the handler directory to validate.
    public var handlerDirectory: String?
    /// The help text asked for with `-h`, if any.
    public var help: String?

    static let allowedFlags: [String: Set<String>] = [
        "list": ["--json"], "show": ["--json"], "stats": ["--json", "--prometheus"],
        "retry": ["--all-failed", "--all-conflict", "--now"], "discard": ["--all-failed", "--all-conflict", "--yes"],
    ]

    /// Parses `spool-ctl`'s arguments.
    public init(parsing tokens: [String]) throws(UsageError) {
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
            case let .option(name) where name == "--auth-dir" || name == "--handler-dir":
                guard chosen == "check" else { throw .unknownOption(name) }
                let value = try arguments.value(for: name)
                if name == "--auth-dir" { authDirectory = value } else { handlerDirectory = value }
            case let .option(name):
                guard let chosen, ControlCommand.allowedFlags[chosen]?.contains(name) == true else { throw .unknownOption(name) }
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

    /// The checks that need the whole command line.
    func validate() throws(UsageError) {
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
        case "retry", "discard":
            let bulk = flags.contains("--all-failed") || flags.contains("--all-conflict")
            if positionals.isEmpty && !bulk && !flags.contains("--now") { throw .missingArgument("ID") }
            if !positionals.isEmpty && bulk { throw .conflicting("ID", flags.contains("--all-failed") ? "--all-failed" : "--all-conflict") }
            // Each resource has its own version: one ETag over many operations would silently lift the
            // conflict protection of every write it does not belong to.
            if ifMatch != nil && (bulk || positionals.count > 1) {
                throw .invalidValue(option: "--if-match", value: ifMatch!, expected: "one operation ID: each resource has its own version, so give one retry --if-match per id")
            }
            if ifMatch != nil && flags.contains("--now") { throw .conflicting("--if-match", "--now") }
        default:
            if let first = positionals.first { throw .unexpectedArgument(first) }
        }
    }

    /// The help text to print instead of running, when `-h` was given.
    public var helpText: String? { help }
}
