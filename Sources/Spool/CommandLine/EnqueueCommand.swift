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

/// The command line of `spool-enqueue`: the operation to build (or the document to read) and the limits.
package struct EnqueueCommand: ParsedCommand, Sendable {
    /// The program name in messages.
    package static let program = "spool-enqueue"
    /// One-line usage for errors.
    package static let usage =
        "spool-enqueue [--spool DIR] [METHOD] URL [OPTIONS] | --handler NAME [OPTIONS] [--] [ARG...] | --document "
            + "FILE|- | --batch FILE|-"

    /// `--spool`, if given.
    package var spool: String?
    /// METHOD and URL, or a handler's arguments.
    package var positionals: [String] = []
    /// curl's options that describe the write: `-X`, `-H`, `-d` and the other bodies, `-T`, `-A`, `-e`, `-b`.
    package var curl = CurlWrite()
    /// The first of curl's options given, as it was spelled, for messages.
    package var firstCurlOption: String?
    /// `--body TEXT`.
    package var body: String?
    /// `--body-file FILE`.
    package var bodyFile: String?
    /// `--document FILE`: a whole operation document.
    package var jsonInput: String?
    /// `--batch FILE`: operation documents, one per line, queued durably together.
    package var batchInput: String?
    /// `--payload FILE|-`: the body, copied into the spool after the document's line.
    package var payload: String?
    /// `--max-payload`: the largest payload copied, in bytes.
    package var maxPayload = Spool.defaultMaxPayloadSize
    /// Document fields from the other options, by document name.
    package var fields: [String: JSON] = [:]
    /// `--depends-on` ids.
    package var dependsOn: [JSON] = []
    /// `--max-size`.
    package var maxSize = Spool.defaultMaxDocumentSize
    /// `--max-queue`, `--min-free` and their variables.
    package var limits = QueueLimits()
    /// The limits the caller set (`--max-queue`, `--min-free`, `--max-payload`, `--max-size`, or a variable):
    /// set-group-ID, only these may tighten the administrator's (`tightened(by:)`).
    package var givenLimits = Set<String>()
    /// `-h`.
    package var help = false
    /// `-s`: no progress meter, as curl's.
    package var silent = false
    /// The random end of a multipart boundary, made once so that the header and the body agree.
    package var boundarySuffix = String(UInt64.random(in: .min ... .max), radix: 16).leftPadded(to: 16)

    /// Parses `spool-enqueue`'s arguments; times like `+10m` count from now.
    package init(parsing tokens: [String]) throws(UsageError) {
        try self.init(parsing: tokens, nowSeconds: Timestamp.nowSeconds())
    }

    /// Parses `spool-enqueue`'s arguments; times like `+10m` count from `nowSeconds`.
    package init(parsing tokens: [String], nowSeconds: Int64) throws(UsageError) {
        var arguments = Arguments(tokens)
        var explicitLimits = Set<String>()
        func time(_ option: String) throws(UsageError) -> JSON {
            let text = try arguments.value(for: option)
            guard let seconds = Timestamp.parseArgument(text, nowSeconds: nowSeconds) else {
                throw .invalidValue(
                    option: option, value: text, expected: "an RFC 3339 time, @EPOCH or +DURATION (30s, 10m, 2h, 1d)")
            }
            return .string(Timestamp.formatRFC3339(seconds))
        }
        while let token = arguments.next() {
            switch token {
            case let .positional(value): positionals.append(value)
            case .option("-h"), .option("--help"):
                help = true
                return
            case .option("--spool"): spool = try arguments.value(for: "--spool")
            case let .option(name) where CurlWrite.valued[name] != nil:
                firstCurlOption = firstCurlOption ?? name
                try curl.take(CurlWrite.valued[name]!, try arguments.value(for: name))
            case let .option(name) where name.count > 2 && !name.hasPrefix("--")
                && CurlWrite.valued[String(name.prefix(2))] != nil:
                // curl's short options take their value attached too: -d@file, -HName:value.
                firstCurlOption = firstCurlOption ?? String(name.prefix(2))
                try curl.take(CurlWrite.valued[String(name.prefix(2))]!, String(name.dropFirst(2)))
            case .option("--json"):
                firstCurlOption = firstCurlOption ?? "--json"
                curl.takeJSON(try arguments.value(for: "--json"))
            case let .option(name) where CurlWrite.kept.contains(name):
                if name == "-s" || name == "--silent" { silent = true }
            case let .option(name) where CurlWrite.isBundle(name):
                try takeBundle(name, &arguments)
            case let .option(name) where CurlWrite.refused[name] != nil:
                throw .unsupported(name, why: CurlWrite.refused[name]!)
            case let .option(name) where name == "--body" || name == "--body-file" || name == "--payload":
                // One body: a second one, of any kind, is refused rather than silently winning.
                if let given = body != nil
                    ? "--body" : bodyFile != nil ? "--body-file" : payload != nil ? "--payload" : nil
                {
                    throw .conflicting(given, name)
                }
                let value = try arguments.value(for: name)
                switch name {
                case "--body": body = value
                case "--body-file": bodyFile = value
                default: payload = value
                }
            case .option("--max-payload"):
                let text = try arguments.value(for: "--max-payload")
                guard let n = ByteCount.parse(text) else {
                    throw .invalidValue(
                        option: "--max-payload", value: text, expected: "bytes, or a number with k, M or G")
                }
                maxPayload = n
                givenLimits.insert("--max-payload")
            case .option("--document"): jsonInput = try arguments.value(for: "--document")
            case .option("--batch"): batchInput = try arguments.value(for: "--batch")
            case .option("--if-match"): fields["if_match"] = .string(try arguments.value(for: "--if-match"))
            case .option("--key"): fields["key"] = .string(try arguments.value(for: "--key"))
            case .option("--idempotency-key"):
                fields["idempotency_key"] = .string(try arguments.value(for: "--idempotency-key"))
            case .option("--depends-on"): dependsOn.append(.string(try arguments.value(for: "--depends-on")))
            case .option("--coalesce"):
                try arguments.noValue(for: "--coalesce")
                fields["coalesce"] = .bool(true)
            case let .option(name) where name == "--merge" || name == "--creates":
                try arguments.noValue(for: name)
                fields[String(name.dropFirst(2))] = .bool(true)
            case .option("--allow-get"):
                try arguments.noValue(for: "--allow-get")
                fields["allow_get"] = .bool(true)
            case .option("--not-before"): fields["not_before"] = try time("--not-before")
            case .option("--expires"): fields["expires_at"] = try time("--expires")
            case .option("--max-attempts"):
                let text = try arguments.value(for: "--max-attempts")
                guard let n = Int(text) else {
                    throw .invalidValue(option: "--max-attempts", value: text, expected: "an integer")
                }
                fields["max_attempts"] = .number(String(n))
            case .option("--priority"):
                let text = try arguments.value(for: "--priority")
                guard let n = Int(text), Operation.priorityRange.contains(n) else {
                    throw .invalidValue(option: "--priority", value: text, expected: "an integer from -10 to 10")
                }
                fields["priority"] = .number(String(n))
            case .option("--auth"): fields["auth"] = .string(try arguments.value(for: "--auth"))
            case .option("--handler"): fields["handler"] = .string(try arguments.value(for: "--handler"))
            case let .option(name) where name == "--max-queue" || name == "--min-free":
                try setLimit(name, try arguments.value(for: name))
                explicitLimits.insert(name)
            case .option("--max-size"):
                let text = try arguments.value(for: "--max-size")
                guard let n = Int(text), n > 0 else {
                    throw .invalidValue(option: "--max-size", value: text, expected: "a positive number of bytes")
                }
                maxSize = n
                givenLimits.insert("--max-size")
            case let .option(name): throw .unknownOption(name)
            }
        }
        try validate()
        for (option, variable) in [("--max-queue", "SPOOL_MAX_QUEUE"), ("--min-free", "SPOOL_MIN_FREE")]
        where !explicitLimits.contains(option) {
            if let text = Program.environment(variable) { try setLimit(option, text, named: variable) }
        }
    }

    /// Sets `--max-queue` or `--min-free` from `text`; an error names `name` (an environment variable) when given.
    package mutating func setLimit(_ option: String, _ text: String, named name: String? = nil) throws(UsageError) {
        guard let n = Int(text), n >= 0 else {
            throw .invalidValue(option: name ?? option, value: text, expected: "a number, 0 or more")
        }
        if option == "--max-queue" { limits.maxCount = n } else { limits.minFreeBytes = n }
        givenLimits.insert(option)
    }

    /// The checks that need the whole command line.
    package func validate() throws(UsageError) {
        if let whole = jsonInput != nil ? "--document" : batchInput != nil ? "--batch" : nil {
            if jsonInput != nil, batchInput != nil { throw .conflicting("--document", "--batch") }
            // A batch's documents are small and made durable together: a payload goes alone.
            if batchInput != nil, payload != nil { throw .conflicting("--batch", "--payload") }
            if let first = positionals.first { throw .unexpectedArgument(first) }
            if body != nil { throw .conflicting(whole, "--body") }
            if bodyFile != nil { throw .conflicting(whole, "--body-file") }
            if curl.isUsed { throw .conflicting(whole, firstCurlOption ?? "-H") }
            if let option = fields.keys.sorted().first {
                throw .conflicting(whole, "--" + EnqueueCommand.optionName(option))
            }
            if !dependsOn.isEmpty { throw .conflicting(whole, "--depends-on") }
        } else if fields["handler"] != nil {
            // A job for a handler: the positionals are its arguments, and HTTP's options mean nothing.
            if curl.isUsed { throw .conflicting("--handler", firstCurlOption ?? "-H") }
            if payload != nil { throw .conflicting("--handler", "--payload") }
            for field in ["if_match", "auth"] where fields[field] != nil {
                throw .conflicting("--handler", "--" + EnqueueCommand.optionName(field))
            }
        } else {
            try validateRequest()
        }
    }

    /// The option that sets a document field.
    package static func optionName(_ field: String) -> String {
        switch field {
        case "expires_at": "expires"
        case "body_base64": "body-file"
        default: String(field.map { $0 == "_" ? "-" : $0 })
        }
    }

    /// The help text to print instead of running, when `-h` was given.
    package var helpText: String? { help ? EnqueueCommand.help : nil }

    /// The help whose options a mistyped one is matched against.
    package static var allHelp: String { EnqueueCommand.help }
}
