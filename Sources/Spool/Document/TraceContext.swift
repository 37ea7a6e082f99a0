/// A W3C Trace Context (https://www.w3.org/TR/trace-context/) kept with a write: the trace it belongs to,
/// from the `traceparent` the producer had (OpenTelemetry's `TRACEPARENT` environment variable, or the
/// document's own field), and its `tracestate`. Each attempt is a span of its own under that trace: the
/// server sees the kept trace id with a new span id every time, so that its logs tell the attempts apart.
package struct TraceContext: Equatable, Sendable {
    /// The trace id: 32 lower-case hexadecimal digits, not all zero.
    package let traceID: String
    /// The producer's span, the parent of every attempt: 16 lower-case hexadecimal digits, not all zero.
    package let parentID: String
    /// The trace flags (two hexadecimal digits; 01 is "sampled"), passed on as given.
    package let flags: String
    /// The vendors' `tracestate`, passed on untouched; nil when there is none.
    package let state: String?

    /// The most bytes of `tracestate` kept: the specification's 32 members of at most 256 bytes each fit in
    /// far less, and a header that long is a mistake, not a trace.
    package static let stateLimit = 512

    /// The context of a `traceparent` value and an optional `tracestate`; throws, naming the field, when either
    /// is not what the specification allows.
    package init(traceparent: String, tracestate: String?) throws(OperationError) {
        let parts = traceparent.split(separator: "-", omittingEmptySubsequences: false)
        let lengths = [2, 32, 16, 2]
        // A later version may append fields after the flags; its first four read as version 00's do.
        guard parts.count == 4 || parts.count > 4 && parts[0] != "00",
            zip(parts, lengths).allSatisfy({ $0.utf8.count == $1 && $0.utf8.allSatisfy(Self.isLowerHex) })
        else {
            throw .invalidName(field: "traceparent", value: traceparent, why:
                "must be a W3C traceparent: 00-<32 hex digits>-<16 hex digits>-<2 hex digits>, in lower case")
        }
        guard parts[0] != "ff", parts[1].contains(where: { $0 != "0" }), parts[2].contains(where: { $0 != "0" }) else {
            throw .invalidName(field: "traceparent", value: traceparent, why:
                "has version ff or an all-zero trace or parent id, which the specification makes invalid")
        }
        if let tracestate,
            tracestate.utf8.count > Self.stateLimit || !tracestate.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F })
        {
            throw .invalidName(field: "tracestate", value: tracestate, why:
                "must be at most \(Self.stateLimit) printable ASCII characters")
        }
        traceID = String(parts[1])
        parentID = String(parts[2])
        flags = String(parts[3])
        state = tracestate.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The `traceparent` value of one attempt: the kept trace and flags, with `span` as its own id.
    package func traceparent(span: String) -> String { "00-\(traceID)-\(span)-\(flags)" }

    /// The headers of one request under this trace, `spanID` its own span (a new one unless given):
    /// `traceparent`, and `tracestate` when there is one.
    package func headers(spanID: String? = nil) -> [(name: String, value: String)] {
        let parent = ("traceparent", traceparent(span: spanID ?? TraceContext.newSpanID()))
        return [parent] + (state.map { [("tracestate", $0)] } ?? [])
    }

    /// A new span id: 8 random bytes, never all zero, in hexadecimal.
    package static func newSpanID() -> String {
        var generator = SystemRandomNumberGenerator()
        var value: UInt64 = 0
        while value == 0 { value = generator.next() }
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.utf8.count) + digits
    }

    private static func isLowerHex(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
    }
}
