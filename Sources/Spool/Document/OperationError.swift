
/// Why a document is not a valid operation. Each description names the field and says what is expected.
package enum OperationError: Error, Equatable, CustomStringConvertible {
    case notJSON(JSONError)
    case notAnObject(found: String)
    case missingField(String)
    case wrongType(field: String, expected: String, found: String)
    case invalidMethod(String)
    case methodCase(String, String)
    case readMethod(String)
    case unqueueableMethod(String)
    case invalidURL(String, why: String)
    case invalidHeaderName(String)
    case invalidHeaderValue(name: String)
    case forbiddenHeader(String, why: String)
    case invalidDate(field: String, value: String)
    case invalidBase64
    case conflictingFields(String, String)
    case outOfRange(field: String, value: String, range: ClosedRange<Int>)
    case invalidName(field: String, value: String, why: String)
    case tooLarge(size: Int, limit: Int)

    /// The message naming the field at fault, where there is one, and what is expected of it.
    package var description: String {
        switch self {
        case let .notJSON(error): "not valid JSON: \(error)"
        case let .notAnObject(found): "the document must be a JSON object, found \(found)"
        case let .missingField(field): "missing required field \"\(field)\""
        case let .wrongType(field, expected, found): "field \"\(field)\" must be \(expected), found \(found)"
        case let .invalidMethod(method):
            "\"method\" \(quoted(method)) is not an HTTP method token (letters such as PUT, POST, DELETE)"
        case let .methodCase(method, upper):
            "\"method\" \(quoted(method)) is not \(upper): methods are case-sensitive and a server refuses "
                + "\(quoted(method)); write \(upper)"
        case let .readMethod(method):
            "\"method\" \(method) only reads, and nobody reads the answer of a queued request; spool queues writes "
                + "(PUT, POST, PATCH, DELETE). To send it for its effect (a heartbeat URL), add \"allow_get\": true "
                + "(spool-enqueue --allow-get)"
        case let .unqueueableMethod(method):
            "\"method\" \(method) cannot be queued: it means something only on a live connection"
        case let .invalidURL(url, why): "\"url\" \(quoted(url)) \(why)"
        case let .invalidHeaderName(name): "header name \(quoted(name)) is not an HTTP token"
        case let .invalidHeaderValue(name): "header \(quoted(name)) has a value containing CR, LF or NUL"
        case let .forbiddenHeader(name, why): "header \(quoted(name)) is not allowed: \(why)"
        case let .invalidDate(field, value):
            "field \"\(field)\" \(quoted(value)) is not an RFC 3339 date-time such as 2026-11-29T13:00:00Z"
        case .invalidBase64: "\"body_base64\" is not standard base64"
        case let .conflictingFields(a, b): "fields \"\(a)\" and \"\(b)\" cannot both be given"
        case let .outOfRange(field, value, range):
            "field \"\(field)\" is \(value), expected an integer from \(range.lowerBound) to \(range.upperBound)"
        case let .invalidName(field, value, why): "field \"\(field)\" \(quoted(value)) \(why)"
        case let .tooLarge(size, limit): "the document is \(size) bytes, more than the limit of \(limit) bytes"
        }
    }

    /// A value shown in a message, quoted and cut short, with control characters escaped.
    package func quoted(_ value: String) -> String {
        var shown = value.count > 80 ? String(value.prefix(80)) + "…" : value
        shown = JSON.string(shown).text
        return shown
    }
}
