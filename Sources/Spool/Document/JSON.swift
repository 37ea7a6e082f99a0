
/// A JSON value that keeps object member order and numbers' exact text, so producers' fields survive a round trip.
package enum JSON: Equatable, Sendable {
    case null
    case bool(Bool)
    /// A number as it was written (or as spool wrote it), never rounded through a Double.
    case number(String)
    case string(String)
    case array([JSON])
    /// Members in document order; keys are unique (the parser rejects duplicates).
    case object([(key: String, value: JSON)])

    /// Equal when of the same kind and contents: objects member by member in order, numbers by their text.
    package static func == (lhs: JSON, rhs: JSON) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case let (.bool(a), .bool(b)): a == b
        case let (.number(a), .number(b)): a == b
        case let (.string(a), .string(b)): a == b
        case let (.array(a), .array(b)): a == b
        case let (.object(a), .object(b)):
            a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: false
        }
    }

    /// The member named `key` of an object, or nil.
    package subscript(key: String) -> JSON? {
        guard case let .object(members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// A word for the value's type, for messages.
    package var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    /// The compact JSON text of this value.
    package var text: String {
        var out = ""
        write(to: &out)
        return out
    }

    /// The JSON text of this value indented by two spaces a level, one member or item a line: what a person
    /// reads and diffs.
    package var prettyText: String {
        var out = ""
        writePretty(to: &out, indent: "")
        return out
    }

    private func writePretty(to out: inout String, indent: String) {
        let inner = indent + "  "
        switch self {
        case let .array(items) where !items.isEmpty:
            out += "[\n"
            for (i, item) in items.enumerated() {
                out += inner
                item.writePretty(to: &out, indent: inner)
                out += i < items.count - 1 ? ",\n" : "\n"
            }
            out += indent + "]"
        case let .object(members) where !members.isEmpty:
            out += "{\n"
            for (i, member) in members.enumerated() {
                out += inner
                JSON.writeString(member.key, to: &out)
                out += ": "
                member.value.writePretty(to: &out, indent: inner)
                out += i < members.count - 1 ? ",\n" : "\n"
            }
            out += indent + "}"
        default: write(to: &out)
        }
    }

    /// Appends the compact JSON text of this value.
    package func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case let .bool(b): out += b ? "true" : "false"
        case let .number(n): out += n
        case let .string(s): JSON.writeString(s, to: &out)
        case let .array(items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                item.write(to: &out)
            }
            out += "]"
        case let .object(members):
            out += "{"
            for (i, member) in members.enumerated() {
                if i > 0 { out += "," }
                JSON.writeString(member.key, to: &out)
                out += ":"
                member.value.write(to: &out)
            }
            out += "}"
        }
    }

    /// Appends `s` as a JSON string: quotes, backslashes, control characters and DEL escaped, the rest as it is.
    package static func writeString(_ s: String, to out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                out += "\\u" + String(scalar.value, radix: 16).leftPadded(to: 4)
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }

    /// Parses a complete JSON text. Rejects invalid UTF-8, duplicate keys and nesting deeper than `maxDepth`.
    package static func parse(_ bytes: [UInt8], maxDepth: Int = 64) throws(JSONError) -> JSON {
        var parser = JSONParser(bytes: bytes, maxDepth: maxDepth)
        return try parser.parseDocument()
    }

    /// Parses a complete JSON text from a string.
    package static func parse(_ text: String) throws(JSONError) -> JSON {
        try parse(Array(text.utf8))
    }
}
