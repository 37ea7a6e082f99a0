import Glibc
import Spool

let program = "spool-enqueue"
let usage = "spool-enqueue [--spool DIR] METHOD URL [OPTIONS] | spool-enqueue [--spool DIR] --json FILE|-"
let help = """
    OVERVIEW: Queue one HTTP write in a spool, durably, and print its id.

    The operation is written to tmp/, fsynced, renamed into new/, and new/ is fsynced:
    exit status 0 means it survives a crash or power cut. spool-send delivers it later.

    USAGE: spool-enqueue [--spool DIR] METHOD URL [--header 'Name: value']...
                         [--body TEXT | --body-file FILE] [--if-match ETAG] [--key KEY]
                         [--idempotency-key KEY] [--depends-on ID]... [--coalesce]
                         [--not-before TIME] [--expires TIME] [--max-attempts N] [--auth NAME]
                         [--max-size BYTES] [--max-queue COUNT] [--min-free BYTES]
           spool-enqueue [--spool DIR] --json FILE|-

    ARGUMENTS:
      METHOD                  The HTTP method (PUT, POST, PATCH, DELETE, ...).
      URL                     The target, an http:// or https:// URL.

    OPTIONS:
      --spool DIR             The spool directory (default: $SPOOL_DIR, else ./spool).
      --header 'Name: value'  Add a request header; repeat for more.
      --body TEXT             Send TEXT as the request body.
      --body-file FILE        Send the contents of FILE (- for standard input) as the body.
      --json FILE             Read a whole operation document from FILE (- for standard input)
                              and check it instead of building one from arguments.
      --if-match ETAG         Send If-Match: ETAG; a 412 answer files the operation in conflict/.
      --key KEY               Ordering key (default: the URL): writes with one key go in order.
      --idempotency-key KEY   Idempotency-Key to send (default: a new random key).
      --depends-on ID         Send only after operation ID is done; repeat for more.
      --coalesce              Let a newer write with the same key replace this one before it is sent.
      --not-before TIME       Do not send before TIME (RFC 3339, @EPOCH, or +DURATION such as +10m).
      --expires TIME          Give up at TIME (same forms) and file the operation in failed/.
      --max-attempts N        Give up after N attempts (1 to 1000).
      --auth NAME             Add the credentials of profile NAME from the auth directory at send time.
      --max-size BYTES        Refuse documents larger than BYTES (default: 1048576).
      --max-queue COUNT       Refuse (exit 75) when COUNT operations already wait in new/
                              (default: $SPOOL_MAX_QUEUE, else 100000).
      --min-free BYTES        Refuse (exit 75) when less than BYTES would stay free on the spool's
                              file system (default: $SPOOL_MIN_FREE, else 16777216; 0: no check).
      -h, --help              Show help information.

    EXIT STATUS:
      0 queued (the id is printed), 64 usage error, 65 invalid operation,
      66 unreadable input file, 73/74 spool unusable, 75 disk or queue full: try again later.

    """

var arguments = Arguments()
var spoolOption: String?
var positionals: [String] = []
var headers: [(String, JSON)] = []
var body: JSON?
var bodySource: String?
var jsonInput: String?
var fields: [String: JSON] = [:]
var dependsOn: [JSON] = []
var maxSize = Spool.defaultMaxDocumentSize
var limits = QueueLimits()
let now = Timestamp.now()
var explicitLimits = Set<String>()

@MainActor func setBody(_ option: String, _ value: JSON) throws(UsageError) {
    if let bodySource { throw .conflicting(bodySource, option) }
    bodySource = option
    body = value
}

@MainActor func time(_ option: String, _ text: String) throws(UsageError) -> JSON {
    guard let seconds = Timestamp.parseArgument(text, now: now) else {
        throw .invalidValue(option: option, value: text, expected: "an RFC 3339 time, @EPOCH or +DURATION (30s, 10m, 2h, 1d)")
    }
    return .string(Timestamp.formatRFC3339(seconds))
}

do throws(UsageError) {
    while let token = arguments.next() {
        switch token {
        case let .positional(value): positionals.append(value)
        case .option("-h"), .option("--help"):
            Program.printOut(help)
            exit(0)
        case .option("--spool"): spoolOption = try arguments.value(for: "--spool")
        case .option("--header"):
            let line = try arguments.value(for: "--header")
            guard let colon = line.firstIndex(of: ":") else {
                throw .invalidValue(option: "--header", value: line, expected: "'Name: value'")
            }
            headers.append((String(line[..<colon]).trimmingWhitespace(), .string(String(line[line.index(after: colon)...]).trimmingWhitespace())))
        case .option("--body"): try setBody("--body", .string(try arguments.value(for: "--body")))
        case .option("--body-file"):
            let path = try arguments.value(for: "--body-file")
            do {
                let (bytes, truncated) = try Program.readInput(path, limit: maxSize)
                if truncated { Program.fail(program, "\(path) is larger than \(maxSize) bytes", code: ExitCode.dataError) }
                if let text = String(validating: bytes, as: UTF8.self) {
                    try setBody("--body-file", .string(text))
                } else {
                    try setBody("--body-file", .null)
                    fields["body_base64"] = .string(Base64.encode(bytes))
                }
            } catch let error as UsageError {
                throw error
            } catch {
                Program.fail(program, "cannot read \(path): \(error)", code: ExitCode.noInput)
            }
        case .option("--json"): jsonInput = try arguments.value(for: "--json")
        case .option("--if-match"): fields["if_match"] = .string(try arguments.value(for: "--if-match"))
        case .option("--key"): fields["key"] = .string(try arguments.value(for: "--key"))
        case .option("--idempotency-key"): fields["idempotency_key"] = .string(try arguments.value(for: "--idempotency-key"))
        case .option("--depends-on"): dependsOn.append(.string(try arguments.value(for: "--depends-on")))
        case .option("--coalesce"):
            try arguments.noValue(for: "--coalesce")
            fields["coalesce"] = .bool(true)
        case .option("--not-before"): fields["not_before"] = try time("--not-before", try arguments.value(for: "--not-before"))
        case .option("--expires"): fields["expires_at"] = try time("--expires", try arguments.value(for: "--expires"))
        case .option("--max-attempts"):
            let text = try arguments.value(for: "--max-attempts")
            guard let n = Int(text) else { throw .invalidValue(option: "--max-attempts", value: text, expected: "an integer") }
            fields["max_attempts"] = .number(String(n))
        case .option("--auth"): fields["auth"] = .string(try arguments.value(for: "--auth"))
        case .option("--max-queue"), .option("--min-free"):
            guard case let .option(name) = token else { break }
            let text = try arguments.value(for: name)
            guard let n = Int(text), n >= 0 else { throw .invalidValue(option: name, value: text, expected: "a number, 0 or more") }
            if name == "--max-queue" { limits.maxCount = n } else { limits.minFreeBytes = n }
            explicitLimits.insert(name)
        case .option("--max-size"):
            let text = try arguments.value(for: "--max-size")
            guard let n = Int(text), n > 0 else { throw .invalidValue(option: "--max-size", value: text, expected: "a positive number of bytes") }
            maxSize = n
        case let .option(name): throw .unknownOption(name)
        }
    }
    if jsonInput != nil {
        if let first = positionals.first { throw .unexpectedArgument(first) }
        if let bodySource { throw .conflicting("--json", bodySource) }
        if !headers.isEmpty { throw .conflicting("--json", "--header") }
        if let option = fields.keys.sorted().first { throw .conflicting("--json", "--" + option.replacingUnderscores()) }
        if !dependsOn.isEmpty { throw .conflicting("--json", "--depends-on") }
    } else {
        if positionals.count < 1 { throw .missingArgument("METHOD") }
        if positionals.count < 2 { throw .missingArgument("URL") }
        if positionals.count > 2 { throw .unexpectedArgument(positionals[2]) }
    }
    for (option, variable) in [("--max-queue", "SPOOL_MAX_QUEUE"), ("--min-free", "SPOOL_MIN_FREE")] where !explicitLimits.contains(option) {
        guard let text = Program.environment(variable) else { continue }
        guard let n = Int(text), n >= 0 else { throw .invalidValue(option: variable, value: text, expected: "a number, 0 or more") }
        if option == "--max-queue" { limits.maxCount = n } else { limits.minFreeBytes = n }
    }
} catch {
    Program.usageFailure(program, error, usage: usage)
}

var document: JSON
if let jsonInput {
    let bytes: [UInt8]
    do {
        let read = try Program.readInput(jsonInput, limit: maxSize)
        if read.truncated { Program.fail(program, "\(jsonInput) is larger than \(maxSize) bytes", code: ExitCode.dataError) }
        bytes = read.bytes
    } catch {
        Program.fail(program, "cannot read \(jsonInput): \(error)", code: ExitCode.noInput)
    }
    do { document = try JSON.parse(bytes) } catch {
        Program.fail(program, "invalid operation in \(jsonInput): not valid JSON: \(error)", code: ExitCode.dataError)
    }
} else {
    var members: [(key: String, value: JSON)] = [("method", .string(positionals[0])), ("url", .string(positionals[1]))]
    if !headers.isEmpty { members.append(("headers", .object(headers.map { (key: $0.0, value: $0.1) }))) }
    if let body, body != .null { members.append(("body", body)) }
    for field in ["body_base64", "idempotency_key", "if_match", "key"] {
        if let value = fields[field] { members.append((field, value)) }
    }
    if !dependsOn.isEmpty { members.append(("depends_on", .array(dependsOn))) }
    for field in ["coalesce", "not_before", "expires_at", "max_attempts", "auth"] {
        if let value = fields[field] { members.append((field, value)) }
    }
    document = .object(members)
}

// Fill in an Idempotency-Key so that every attempt of this write carries the same one.
if case var .object(members) = document, document["idempotency_key"] == nil {
    members.append(("idempotency_key", .string(IdempotencyKey.random())))
    document = .object(members)
}

let operation: Operation
do { operation = try Operation(document: document) } catch {
    Program.fail(program, "invalid operation\(jsonInput.map { " in \($0)" } ?? ""): \(error)", code: ExitCode.dataError)
}

let spool: Spool
do {
    spool = try Spool(path: Spool.defaultPath(option: spoolOption))
    try spool.requireWritable()
} catch {
    Program.fail(program, error.description, code: error.exitCode)
}
do {
    let id = try spool.enqueue(operation, maxSize: maxSize, limits: limits)
    Program.printOut(id + "\n")
} catch {
    Program.fail(program, error.description, code: error.exitCode)
}

extension String {
    func replacingUnderscores() -> String {
        switch self {
        case "expires_at": "expires"
        case "body_base64": "body-file"
        default: String(map { $0 == "_" ? "-" : $0 })
        }
    }
}
