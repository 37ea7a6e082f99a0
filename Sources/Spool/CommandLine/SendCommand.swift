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

/// The command line of `spool-send`, shared by its two halves: the light front that decides whether
/// anything is due, and `spool-send-http`, which sends.
package struct SendCommand: ParsedCommand, Sendable {
    /// The program name in messages.
    package static let program = "spool-send"
    /// One-line usage for errors.
    package static let usage =
        "spool-send [--spool DIR] [--once | --watch] [--flush] [--concurrency N] [--timeout SECONDS] [...]"

    /// `--spool`, if given.
    package var spool: String?
    /// `--watch` rather than `--once`.
    package var watch = false
    /// Options for the worker.
    package var options = WorkerOptions()
    /// How the HTTP engine connects.
    package var transport = TransportSettings()
    /// `--auth-dir`, if given.
    package var authDirectory: String?
    /// `--handler-dir`, if given.
    package var handlerDirectory: String?
    /// `--config`, if given.
    package var configurationPath: String?
    /// `--lease`, if given: seconds after which another host's claim is presumed dead.
    package var leaseSeconds: Int64?
    /// Whether `--max-payload` was given: it goes over spool.conf's `max-payload`.
    package var maxPayloadGiven = false
    /// `--poll`: with `--watch`, look at `new/` at least this often (another host's drops raise no inotify
    /// event here).
    package var pollSeconds: Int64?
    /// `--threads`: how many threads send; nil for one, at most one per lane.
    package var threads: Int?
    /// `--warn-after`, if given: goes under spool.conf's origin sections, over its `[default]`.
    package var warnAfterSeconds: Int64?
    /// `-v` / `-q`.
    package var level = Log.Level.normal
    /// `-h` / `--help`.
    package var help = false

    /// Parses `spool-send`'s arguments.
    package init(parsing tokens: [String]) throws(UsageError) {
        var arguments = Arguments(tokens)
        var mode: String?
        func seconds(_ option: String, _ text: String) throws(UsageError) -> Int64 {
            guard let value = Timestamp.parseDuration(text) else {
                throw .invalidValue(option: option, value: text, expected: "a duration such as 30, 30s, 15m, 2h or 5d")
            }
            return value
        }
        while let token = arguments.next() {
            switch token {
            case .option("-h"), .option("--help"): help = true
            case .option("--spool"): spool = try arguments.value(for: "--spool")
            case let .option(name) where name == "--once" || name == "--watch":
                try arguments.noValue(for: name)
                if let mode, mode != name { throw .conflicting(mode, name) }
                mode = name
                watch = name == "--watch"
            case .option("--flush"):
                try arguments.noValue(for: "--flush")
                options.flush = true
            case .option("--no-fetch-on-conflict"):
                try arguments.noValue(for: "--no-fetch-on-conflict")
                options.fetchesOnConflict = false
            case .option("--concurrency"):
                let text = try arguments.value(for: "--concurrency")
                guard let n = Int(text), (1...256).contains(n) else {
                    throw .invalidValue(option: "--concurrency", value: text, expected: "an integer from 1 to 256")
                }
                options.concurrency = n
            case .option("--threads"):
                let text = try arguments.value(for: "--threads")
                guard let n = Int(text), (1...256).contains(n) else {
                    throw .invalidValue(option: "--threads", value: text, expected: "an integer from 1 to 256")
                }
                threads = n
            case .option("--timeout"):
                let text = try arguments.value(for: "--timeout")
                guard let n = Double(text), n > 0, n <= 86400 else {
                    throw .invalidValue(option: "--timeout", value: text, expected: "seconds, more than 0")
                }
                transport.timeoutSeconds = n
            case .option("--min-backoff"):
                options.backoff.minimum = try seconds("--min-backoff", try arguments.value(for: "--min-backoff"))
            case .option("--max-backoff"):
                options.backoff.maximum = try seconds("--max-backoff", try arguments.value(for: "--max-backoff"))
            case .option("--lifetime"):
                options.lifetimeSeconds = try seconds("--lifetime", try arguments.value(for: "--lifetime"))
            case .option("--warn-after"):
                let value = try seconds("--warn-after", try arguments.value(for: "--warn-after"))
                guard value > 0 else {
                    throw .invalidValue(
                        option: "--warn-after", value: "\(value)", expected: "a duration of at least 1s")
                }
                warnAfterSeconds = value
            case .option("--auth-dir"): authDirectory = try arguments.value(for: "--auth-dir")
            case .option("--handler-dir"): handlerDirectory = try arguments.value(for: "--handler-dir")
            case .option("--config"): configurationPath = try arguments.value(for: "--config")
            case .option("--lease"): leaseSeconds = try seconds("--lease", try arguments.value(for: "--lease"))
            case .option("--poll"):
                let value = try seconds("--poll", try arguments.value(for: "--poll"))
                guard value > 0 else {
                    throw .invalidValue(option: "--poll", value: "\(value)", expected: "a duration of at least 1s")
                }
                pollSeconds = value
            case .option("--max-size"):
                let text = try arguments.value(for: "--max-size")
                guard let n = Int(text), n > 0 else {
                    throw .invalidValue(option: "--max-size", value: text, expected: "a positive number of bytes")
                }
                options.maxSize = n
            case .option("--max-payload"):
                let text = try arguments.value(for: "--max-payload")
                guard let n = ByteCount.parse(text) else {
                    throw .invalidValue(
                        option: "--max-payload", value: text, expected: "bytes, or a number with k, M or G")
                }
                options.maxPayload = n
                maxPayloadGiven = true
            case .option("--allow-origin"):
                let text = try arguments.value(for: "--allow-origin")
                guard let origin = try? Operation.origin(of: text) else {
                    throw .invalidValue(
                        option: "--allow-origin", value: text,
                        expected: "an origin such as https://api.example.com or http://127.0.0.1:8080")
                }
                options.allowedOrigins = (options.allowedOrigins ?? []).union([origin])
            case let .option(name) where SendCommand.transportOptions.contains(name):
                try parseTransportOption(name, &arguments)
            case let .option(name) where ["-v", "--verbose", "-q", "--quiet"].contains(name):
                // The synopsis says `-v | -q`: asking for both is a mistake to show, not a choice to guess.
                let asked: Log.Level = name.hasPrefix("-v") || name == "--verbose" ? .verbose : .quiet
                if level != .normal, level != asked { throw .conflicting("-v", "-q") }
                level = asked
            case let .option(name): throw .unknownOption(name)
            case let .positional(value): throw .unexpectedArgument(value)
            }
        }
        try settle()
    }

    /// The options of the HTTP engine, named as curl names them.
    package static let transportOptions: Set<String> = ["--cacert", "--proxy", "--noproxy", "--http1.1", "--max-rate"]

    /// Reads one of `transportOptions`, with its value, into the transport settings.
    package mutating func parseTransportOption(_ name: String, _ arguments: inout Arguments) throws(UsageError) {
        switch name {
        case "--cacert":
            let file = try arguments.value(for: name)
            guard !file.isEmpty else {
                throw .invalidValue(option: name, value: file, expected: "a PEM file of CA certificates")
            }
            transport.caFile = file
        case "--proxy": transport.proxy = try arguments.value(for: name)
        case "--noproxy": transport.noProxy = try arguments.value(for: name)
        case "--max-rate":
            let text = try arguments.value(for: name)
            guard let rate = ByteCount.parse(text), rate > 0 else {
                throw .invalidValue(option: name, value: text, expected: "bytes per second, or with k, M or G (500k)")
            }
            transport.maxSendBytesPerSecond = rate
        default:
            try arguments.noValue(for: name)
            transport.version = .http1_1
        }
    }

    /// What follows from the options once all are read: defaults from the environment, and the checks
    /// between options.
    package mutating func settle() throws(UsageError) {
        if options.allowedOrigins == nil, let list = Program.environment("SPOOL_ALLOW_ORIGINS") {
            options.allowedOrigins = try SendCommand.origins(list)
        }
        options.backoff = Backoff(minimum: options.backoff.minimum, maximum: options.backoff.maximum)
        // The journal's entries name the spool, so that the catalog's commands act on the right one.
        options.log = Log(program: SendCommand.program, level: level, spool: FileName.absolutePath(
            Spool.defaultPath(option: spool)))
        // Uploads under way, as curl's meter shows them: said with -v, and only to a person at a terminal.
        if level == .verbose { options.progress = ProgressMeter.forTerminal(verb: "uploading") }
        options.leaseSeconds = leaseSeconds ?? Spool.defaultLeaseSeconds(timeoutSeconds: transport.timeoutSeconds)
        if let lease = leaseSeconds, Double(lease) <= transport.timeoutSeconds {
            // A shorter lease would let another host take a claim whose request is still in flight.
            throw .invalidValue(
                option: "--lease", value: "\(lease)",
                expected: "a duration longer than --timeout (\(Int(transport.timeoutSeconds))s)")
        }
        transport.connectionsPerOrigin = options.concurrency
        // One by default, as curl's --parallel: a second thread's lanes contend with the first's for the spool
        // lock and the folders, which costs more CPU than it saves (measured with spool-bench).
        transport.threads = min(threads ?? 1, options.concurrency)
        if transport.caFile == nil, let file = Program.environment("SPOOL_CA_FILE"), !file.isEmpty {
            transport.caFile = file
        }
        options.credentials = Credentials.defaultDirectory(option: authDirectory).map(Credentials.init(directory:))
        options.timeoutSeconds = transport.timeoutSeconds
    }

    /// The origins of `SPOOL_ALLOW_ORIGINS`: separated by spaces, commas or newlines.
    package static func origins(_ list: String) throws(UsageError) -> Set<String> {
        var origins = Set<String>()
        for text in list.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "\n" }) {
            guard let origin = try? Operation.origin(of: String(text)) else {
                throw .invalidValue(
                    option: "SPOOL_ALLOW_ORIGINS", value: String(text),
                    expected: "origins such as https://api.example.com")
            }
            origins.insert(origin)
        }
        return origins
    }

    /// The help text to print instead of running, when `-h` was given.
    package var helpText: String? { help ? SendCommand.help : nil }

    /// The help whose options a mistyped one is matched against.
    package static var allHelp: String { SendCommand.help }

    /// Ends the program when a run met faults of the spool: 74, or 75 when they were all shortages that
    /// pass (sysexits). Each fault was logged when it happened; this says what the status means.
    package static func exitIfFaulted(_ faults: FaultReport) {
        guard !faults.isEmpty else { return }
        Program.fail(program, faults.summary, code: faults.exitCode)
    }
}
