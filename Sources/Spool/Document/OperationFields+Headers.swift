import SpoolNames
import SpoolSystem
import SpoolTransport

/// A document's `headers`: the headers sent, and those spool would add that the write is sent without.
extension OperationFields {
    /// `headers` in document order: names that are tokens and not forbidden, values without CR, LF or NUL.
    package func headers() throws(OperationError) -> [(name: String, value: String)] {
        guard let value = self["headers"] else { return [] }
        guard case let .object(pairs) = value else {
            throw .wrongType(field: "headers", expected: "an object of strings", found: value.typeName)
        }
        var headers: [(name: String, value: String)] = []
        for (name, headerValue) in pairs where headerValue != .null {
            guard case let .string(text) = headerValue else {
                throw .wrongType(field: "headers.\(name)", expected: "a string", found: headerValue.typeName)
            }
            guard !name.isEmpty, Self.allBytes(of: name, HTTPSyntax.isTokenCharacter) else {
                throw .invalidHeaderName(name)
            }
            if let why = Operation.forbiddenHeaders[name.lowercased()] { throw .forbiddenHeader(name, why: why) }
            guard Self.allBytes(of: text, { $0 != 0x0D && $0 != 0x0A && $0 != 0 }) else {
                throw .invalidHeaderValue(name: name)
            }
            headers.append((name, text))
        }
        return headers
    }

    /// The names in `headers` whose value is null: headers spool would add (its `User-Agent`, a JSON body's
    /// `Content-Type`) that the write is sent without, as curl's `-H 'Name:'` removes them. `Idempotency-Key`
    /// cannot be removed: every write carries one.
    package func removedHeaders() throws(OperationError) -> [String] {
        guard case let .object(pairs)? = self["headers"] else { return [] }
        var removed: [String] = []
        for (name, headerValue) in pairs where headerValue == .null {
            guard !name.isEmpty, Self.allBytes(of: name, HTTPSyntax.isTokenCharacter) else {
                throw .invalidHeaderName(name)
            }
            if name.lowercased() == "idempotency-key" {
                throw .forbiddenHeader(name, why: OperationFields.idempotencyKeyStays)
            }
            removed.append(name)
        }
        return removed
    }

    /// `traceparent` and `tracestate`: the trace the write belongs to, sent with a new span id on each attempt;
    /// nil when there is no `traceparent`. A `tracestate` alone belongs to no trace and is refused.
    package func trace() throws(OperationError) -> TraceContext? {
        let state = try string("tracestate")
        guard let parent = try string("traceparent") else {
            if state != nil { throw .invalidName(field: "tracestate", value: state!, why: "needs a \"traceparent\"") }
            return nil
        }
        return try TraceContext(traceparent: parent, tracestate: state)
    }

    /// Why a write cannot go without its `Idempotency-Key`.
    package static let idempotencyKeyStays =
        "every write carries one, so that a retry is never applied twice; set your own with idempotency_key"
}
