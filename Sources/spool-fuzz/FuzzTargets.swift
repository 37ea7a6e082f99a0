import Spool
import SpoolConfiguration
import SpoolDocument
import SpoolNames
import SpoolSending
import SpoolSystem

/// The fuzz targets: each takes any bytes and traps (a crash libFuzzer reports) only when an invariant breaks.
/// A refusal (a thrown error) is the right answer to bad input, never a finding.
enum FuzzTargets {
    /// The targets by name, as `Fuzz/run.sh` and the corpus replay name them.
    static let all: [String: @Sendable ([UInt8]) -> Void] = [
        "document": document, "names": names, "config": configuration, "headers": headers,
        "arguments": arguments, "head": head, "auth": authProfile,
    ]

    /// The operation document: a document the reader accepts, written back out and read again, is the same
    /// operation (two readers of one file must never see two different writes).
    static func document(_ bytes: [UInt8]) {
        guard let operation = try? Operation(bytes: bytes) else { return }
        let text = Array(operation.document.text.utf8)
        guard let again = try? Operation(bytes: text) else {
            fatalError("accepted, written back, refused: \(String(decoding: text, as: UTF8.self))")
        }
        precondition(fields(operation) == fields(again), "read back differently: \(fields(operation))")
        precondition(again.document.text == operation.document.text, "the text changed on a second reading")
    }

    /// Every field of an operation, as text, for comparing two readings.
    static func fields(_ o: Operation) -> String {
        "\(o.method) \(o.url) \(o.origin) \(o.handler ?? "-") \(o.arguments) "
            + "\(o.headers.map { "\($0.name)=\($0.value)" }) "
            + "\(o.body ?? []) \(o.bodyIsJSON) \(o.hasPayload) \(o.idempotencyKey ?? "-") \(o.ifMatch ?? "-") \(o.key) "
            + "\(o.dependsOn) \(o.coalesce) \(o.merge) \(o.creates) \(o.notBefore ?? -1) \(o.expiresAt ?? -1) "
            + "\(o.maxAttempts ?? -1) \(o.priority) \(o.auth ?? "-")"
    }

    /// The file-name grammar, differentially: the planner's allocation-free reader and the full parser agree
    /// on every name the fast one reads (it may leave a name to the full one, never read it differently), and
    /// a name the full parser reads is written back as a name that reads the same.
    static func names(_ bytes: [UInt8]) {
        let full = QueueName(FileName(bytes: bytes))
        let fast = bytes.withUnsafeBufferPointer { QueueName.Facts($0) }
        if let fast {
            guard let full, let state = full.state else { fatalError("fast reader accepted, full refused: \(bytes)") }
            precondition(fast.keyHash == state.keyHash && fast.orderMicroseconds == state.orderMicroseconds
                && fast.dueSeconds == state.dueSeconds && fast.priority == state.priority
                && fast.originHash == state.originHash && fast.held == state.held
                && fast.claimed == (full.claim != nil), "the readers disagree on \(bytes): \(fast) \(full)")
        }
        if let full {
            precondition(QueueName(full.fileName) == full, "written back differently: \(full)")
        }
    }

    /// spool.conf: any text is read or refused with an error, never a trap.
    static func configuration(_ bytes: [UInt8]) {
        _ = try? SpoolConfiguration.parse(String(decoding: bytes, as: UTF8.self), path: "spool.conf")
    }

    /// What a server says about its limits and its times: Retry-After (seconds and HTTP dates), RateLimit,
    /// RateLimit-Policy and X-RateLimit-*. Whatever they say, the delays stay within their bounds.
    static func headers(_ bytes: [UInt8]) {
        let value = String(decoding: bytes, as: UTF8.self)
        if let seconds = RetryAfter.seconds(value, nowSeconds: 1_800_000_000) {
            precondition(seconds >= 0 && seconds <= RetryAfter.longest, "Retry-After \(value): \(seconds)")
        }
        for name in ["ratelimit-policy", "ratelimit", "x-ratelimit-remaining", "x-ratelimit-reset", "ratelimit-reset"] {
            var fields = ["x-ratelimit-remaining": "0"]
            fields[name] = value
            let limits = RateLimitHeaders(fields, nowSeconds: 1_800_000_000)
            if let pause = limits.pauseSeconds {
                precondition(pause > 0 && pause <= RateLimitHeaders.longestPauseSeconds, "\(name): \(value)")
            }
            if let rate = limits.rate { precondition(rate > 0 && rate.isFinite, "\(name): \(value) gave \(rate)") }
        }
    }

    /// The command lines, split on NUL bytes into arguments: refused with a usage error, never a trap.
    static func arguments(_ bytes: [UInt8]) {
        let tokens = bytes.split(separator: 0, omittingEmptySubsequences: false).map {
            String(decoding: $0, as: UTF8.self)
        }
        _ = try? EnqueueCommand(parsing: tokens, nowSeconds: 1_800_000_000)
        _ = try? SendCommand(parsing: tokens)
        _ = try? ControlCommand(parsing: tokens)
    }
}
