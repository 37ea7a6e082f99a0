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

/// A command line read one token at a time, in the conventions of swift-argument-parser:
/// `--name value` or `--name=value`, `--` ends options.
package struct Arguments {
    /// The tokens not read yet.
    package var tokens: ArraySlice<String>
    /// The value an `--option=value` token carried, until `value(for:)` takes it; nil when there is none.
    package var pendingValue: String?
    /// Whether `--` was read: every token after it is a positional.
    package var optionsEnded = false

    /// The process's arguments without the program name.
    package init(_ tokens: [String] = Array(CommandLine.arguments.dropFirst())) {
        self.tokens = tokens[...]
    }

    /// The next token: an option name (with any `=value` split off and kept for `value(for:)`), or a positional.
    package mutating func next() -> Token? {
        guard let token = tokens.popFirst() else { return nil }
        if optionsEnded || !token.hasPrefix("-") || token == "-" { return .positional(token) }
        if token == "--" {
            optionsEnded = true
            return next()
        }
        if token.hasPrefix("--"), let equals = token.firstIndex(of: "=") {
            pendingValue = String(token[token.index(after: equals)...])
            return .option(String(token[..<equals]))
        }
        pendingValue = nil
        return .option(token)
    }

    /// The value of the option just read.
    package mutating func value(for option: String) throws(UsageError) -> String {
        if let value = pendingValue {
            pendingValue = nil
            return value
        }
        guard let value = tokens.popFirst() else { throw .missingValue(option) }
        return value
    }

    /// Throws when the option just read was given `=value` although it takes none.
    package mutating func noValue(for option: String) throws(UsageError) {
        if pendingValue != nil { throw .unexpectedValue(option) }
    }

    /// One command-line token.
    package enum Token: Equatable {
        case option(String)
        case positional(String)
    }
}

/// A command line that does not fit the command's usage. `main` prints it with a hint and exits 64.
package enum UsageError: Error, CustomStringConvertible {
    case missingValue(String)
    case unexpectedValue(String)
    case unknownOption(String)
    /// An unknown long option, and the known one it is nearest to.
    case unknownOptionNear(String, String)
    case unexpectedArgument(String)
    case missingArgument(String)
    /// A required argument is missing, and what was given needs it: `needs` says why, and what to do.
    case missingArgumentFor(String, needs: String)
    case invalidValue(option: String, value: String, expected: String)
    case conflicting(String, String)
    /// An option of curl's that has no meaning for a queued write, with what to do instead.
    case unsupported(String, why: String)

    /// The message printed after `error:`, in swift-argument-parser's words.
    package var description: String {
        switch self {
        case let .missingValue(option): "missing value for '\(option)'"
        case let .unexpectedValue(option): "'\(option)' takes no value"
        case let .unknownOption(option): "unknown option '\(option)'"
        case let .unknownOptionNear(option, near): "unknown option '\(option)'; did you mean '\(near)'?"
        case let .unexpectedArgument(argument): "unexpected argument '\(argument)'"
        case let .missingArgument(name): "missing expected argument '\(name)'"
        case let .missingArgumentFor(name, needs): "missing expected argument '\(name)': \(needs)"
        case let .invalidValue(option, value, expected):
            "the value '\(value)' is invalid for '\(option)': expected \(expected)"
        case let .conflicting(a, b): "'\(a)' and '\(b)' cannot be used together"
        case let .unsupported(option, why): "'\(option)' is not for a queued write: \(why)"
        }
    }
}

extension UsageError {
    /// The long option named in `help` nearest to the unknown `option`: at most two edits away, or a third of
    /// its length for long ones (a typo, a letter left out or doubled); nil when none is that near.
    package static func nearest(_ option: String, in help: String) -> String? {
        guard option.hasPrefix("--"), option.count > 3 else { return nil }
        var known: Set<String> = []
        var word = ""
        for character in help + " " {
            if character.isLetter || character.isNumber || character == "-" {
                word.append(character)
            } else {
                if word.hasPrefix("--"), word.count > 3 { known.insert(word) }
                word = ""
            }
        }
        let limit = max(2, option.count / 3)
        let scored = known.map { ($0, editDistance(option, $0)) }.filter { $0.1 <= limit && $0.0 != option }
        return scored.min { ($0.1, $0.0) < ($1.1, $1.0) }?.0
    }

    /// Levenshtein distance between two short strings.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var row = Array(0...b.count)
        for i in 1...max(1, a.count) where !a.isEmpty {
            var previous = row[0]
            row[0] = i
            for j in stride(from: 1, through: b.count, by: 1) {
                let current = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                previous = current
            }
        }
        return a.isEmpty ? b.count : row[b.count]
    }
}

/// Process-level helpers shared by the three commands.
package enum Program {
    /// While set, what `printOut` and `printError` say is kept here instead of written: the triage page runs
    /// spool-ctl's own subcommands and shows the person what they said.
    package static let transcript = Locked<String?>(nil)

    /// Appends to the transcript when one is kept; false when none is.
    private static func kept(_ text: String) -> Bool {
        transcript.withLock { kept in
            guard kept != nil else { return false }
            kept! += text
            return true
        }
    }

    /// Writes `text` to standard output.
    package static func printOut(_ text: String) {
        if kept(text) { return }
        do { try FileDescriptor(rawValue: STDOUT_FILENO).writeAll(Array(text.utf8)) } catch
            where error == Errno(rawValue: EPIPE)
        {
            // The reader went away (`spool-ctl list | head` with SIGPIPE ignored, as a parent may leave it):
            // there is no one left to write for.
            exit(ExitCode.ioError)
        } catch {}
    }

    /// Writes `text` to standard error.
    package static func printError(_ text: String) {
        if kept(text) { return }
        try? FileDescriptor(rawValue: STDERR_FILENO).writeAll(Array(text.utf8))
    }

    /// Prints `program: error: message` and exits with `code`.
    package static func fail(_ program: String, _ message: String, code: Int32) -> Never {
        printError("\(program): error: \(message)\n")
        exit(code)
    }

    /// Prints a usage error with a hint to try `--help`, and exits 64.
    package static func usageFailure(_ program: String, _ error: UsageError, usage: String) -> Never {
        printError("\(program): error: \(error)\nUsage: \(usage)\n  See '\(program) --help' for more information.\n")
        exit(ExitCode.usage)
    }

    /// The path of another of the package's programs, installed beside this one.
    package static func siblingExecutable(_ name: String) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return name }
        let path = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let slash = path.lastIndex(of: "/") else { return name }
        return String(path[...slash]) + name
    }

    /// The value of an environment variable, nil when unset or empty.
    package static func environment(_ name: String) -> String? { Environment.value(name) }

    /// Reads a whole file (following links: it is the user's own input, not a queue entry), or standard input for `-`.
    package static func readInput(_ path: String, limit: Int) throws(Errno) -> (bytes: [UInt8], truncated: Bool) {
        if path == "-" { return try FileDescriptor(rawValue: STDIN_FILENO).readAll(limit: limit) }
        let fd = try FileDescriptor.currentDirectory.open(FileName(path), O_RDONLY)
        defer { fd.close() }
        return try fd.readAll(limit: limit)
    }
}

/// A command whose arguments parse into a value, in swift-argument-parser's manner written by hand.
package protocol ParsedCommand {
    /// The program name in messages.
    static var program: String { get }
    /// One-line usage for errors.
    static var usage: String { get }
    /// Parses the arguments after the program name.
    init(parsing tokens: [String]) throws(UsageError)
    /// The help text to print instead of running, when `-h` was given.
    var helpText: String? { get }
    /// Every help text of the command: the long options it names are what a mistyped one is matched against.
    static var allHelp: String { get }
}

extension ParsedCommand {
    /// Parses the process's arguments, printing help to standard output (exit 0) or a usage error with a
    /// hint to standard error (exit 64) as needed.
    package static func fromCommandLine() -> Self {
        let command: Self
        do { command = try Self(parsing: Array(CommandLine.arguments.dropFirst())) } catch {
            if case let .unknownOption(option) = error, let near = UsageError.nearest(option, in: allHelp) {
                Program.usageFailure(program, .unknownOptionNear(option, near), usage: usage)
            }
            Program.usageFailure(program, error, usage: usage)
        }
        if let help = command.helpText {
            Program.printOut(help)
            exit(0)
        }
        return command
    }
}
