
/// Why a JSON text could not be read, with the byte offset where it went wrong.
package enum JSONError: Error, Equatable, CustomStringConvertible {
    case invalidUTF8(offset: Int)
    case unexpectedEnd
    case unexpectedCharacter(offset: Int)
    case duplicateKey(String)
    case tooDeep(limit: Int)
    case invalidNumber(offset: Int)
    case invalidEscape(offset: Int)
    case trailingText(offset: Int)

    /// The message, with the byte offset where the text went wrong when there is one.
    package var description: String {
        switch self {
        case let .invalidUTF8(offset): "invalid UTF-8 at byte \(offset)"
        case .unexpectedEnd: "truncated JSON (the text ends in the middle of a value)"
        case let .unexpectedCharacter(offset): "unexpected character at byte \(offset)"
        case let .duplicateKey(key): "duplicate key \"\(key)\""
        case let .tooDeep(limit): "nested deeper than \(limit) levels"
        case let .invalidNumber(offset): "invalid number at byte \(offset)"
        case let .invalidEscape(offset): "invalid escape sequence at byte \(offset)"
        case let .trailingText(offset): "text after the JSON value at byte \(offset)"
        }
    }
}

/// A one-pass reader of a JSON text's bytes: strict syntax, no duplicate keys, nesting bounded by `maxDepth`.
package struct JSONParser {
    /// The whole text being read.
    package let bytes: [UInt8]
    /// The most arrays and objects a value may be nested in; one deeper throws `tooDeep`.
    package let maxDepth: Int
    /// The offset of the next byte to read.
    package var index = 0
    /// How many arrays and objects enclose the current position.
    package var depth = 0

    /// A parser at the start of `bytes` that refuses nesting deeper than `maxDepth`.
    package init(bytes: [UInt8], maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    /// Reads the whole text as one value: checks it is UTF-8 first, skips a leading BOM, refuses text after the value.
    package mutating func parseDocument() throws(JSONError) -> JSON {
        if String(validating: bytes, as: UTF8.self) == nil {
            throw .invalidUTF8(offset: firstInvalidUTF8Offset())
        }
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        let value = try parseValue()
        skipWhitespace()
        if index != bytes.count { throw .trailingText(offset: index) }
        return value
    }

    /// The offset of the first byte that is not valid UTF-8, for the error (the end when every byte is).
    package func firstInvalidUTF8Offset() -> Int {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case let .valid(encoded): offset += encoded.count
            case .error: return offset
            case .emptyInput: return offset
            }
        }
    }

    /// Moves past spaces, tabs, line feeds and carriage returns, the only whitespace JSON allows.
    package mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    /// Reads one value of any kind after whitespace, its kind told by its first byte.
    package mutating func parseValue() throws(JSONError) -> JSON {
        skipWhitespace()
        guard index < bytes.count else { throw .unexpectedEnd }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expect("true"); return .bool(true)
        case UInt8(ascii: "f"): try expect("false"); return .bool(false)
        case UInt8(ascii: "n"): try expect("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw .unexpectedCharacter(offset: index)
        }
    }

    /// Reads the bytes of `word` (`true`, `false` or `null`), throwing at the first that differs.
    package mutating func expect(_ word: String) throws(JSONError) {
        for byte in word.utf8 {
            guard index < bytes.count else { throw .unexpectedEnd }
            guard bytes[index] == byte else { throw .unexpectedCharacter(offset: index) }
            index += 1
        }
    }

    /// Goes one container deeper, throwing `tooDeep` past `maxDepth`; `closes` comes back out.
    package mutating func enter() throws(JSONError) {
        depth += 1
        if depth > maxDepth { throw .tooDeep(limit: maxDepth) }
    }

    /// Reads an object from its `{`, members in document order; throws `duplicateKey` on a key seen twice.
    package mutating func parseObject() throws(JSONError) -> JSON {
        try enter()
        index += 1
        var members: [(key: String, value: JSON)] = []
        // Room for an operation document's usual members at once, rather than grown three times on the way.
        members.reserveCapacity(8)
        var seen = Set<String>()
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count else { throw .unexpectedEnd }
            guard bytes[index] == UInt8(ascii: "\"") else { throw .unexpectedCharacter(offset: index) }
            let key = try parseString()
            // A document has a handful of members: comparing with each is cheaper than hashing them all.
            let duplicate = members.count < 16 ? members.contains { $0.key == key } : !seen.insert(key).inserted
            if duplicate { throw .duplicateKey(key) }
            if members.count == 15 { seen = Set(members.map(\.key) + [key]) }
            skipWhitespace()
            guard index < bytes.count else { throw .unexpectedEnd }
            guard bytes[index] == UInt8(ascii: ":") else { throw .unexpectedCharacter(offset: index) }
            index += 1
            members.append((key, try parseValue()))
            if try closes(UInt8(ascii: "}")) { return .object(members) }
        }
    }

    /// After a member or an item: true at `close`, which ends the container (consumed, depth left);
    /// false after a comma, before the next one.
    package mutating func closes(_ close: UInt8) throws(JSONError) -> Bool {
        skipWhitespace()
        guard index < bytes.count else { throw .unexpectedEnd }
        switch bytes[index] {
        case UInt8(ascii: ","):
            index += 1
            return false
        case close:
            index += 1
            depth -= 1
            return true
        default: throw .unexpectedCharacter(offset: index)
        }
    }

    /// Reads an array from its `[`, items in order.
    package mutating func parseArray() throws(JSONError) -> JSON {
        try enter()
        index += 1
        var items: [JSON] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array(items)
        }
        while true {
            items.append(try parseValue())
            if try closes(UInt8(ascii: "]")) { return .array(items) }
        }
    }

    /// Checks a number's syntax (no leading zero, digits after `.` and `e`) and keeps its text as written.
    package mutating func parseNumber() throws(JSONError) -> JSON {
        let start = index
        func digits(_ p: inout JSONParser) -> Int {
            let s = p.index
            while p.index < p.bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(p.bytes[p.index]) {
                p.index += 1
            }
            return p.index - s
        }
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        let intStart = index
        let intDigits = digits(&self)
        if intDigits == 0 || (intDigits > 1 && bytes[intStart] == UInt8(ascii: "0")) {
            throw .invalidNumber(offset: start)
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            if digits(&self) == 0 { throw .invalidNumber(offset: start) }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            if digits(&self) == 0 { throw .invalidNumber(offset: start) }
        }
        return .number(String(decoding: bytes[start..<index], as: UTF8.self))
    }

    /// Reads the four hexadecimal digits of a `\u` escape as one UTF-16 code unit.
    package mutating func parseHex4() throws(JSONError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw .unexpectedEnd }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[index]
            let digit: UInt32
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(c - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(c - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(c - UInt8(ascii: "A") + 10)
            default: throw .invalidEscape(offset: index)
            }
            value = value * 16 + digit
            index += 1
        }
        return value
    }

    /// A string's text. The document was checked as UTF-8 as a whole, so a run without escapes is taken as it
    /// is: most strings have none, and are made with one copy.
    package mutating func parseString() throws(JSONError) -> String {
        index += 1
        let start = index
        while index < bytes.count {
            let c = bytes[index]
            if c == UInt8(ascii: "\"") {
                index += 1
                return String(decoding: bytes[start..<index - 1], as: UTF8.self)
            }
            if c < 0x20 { throw .unexpectedCharacter(offset: index) }
            if c == UInt8(ascii: "\\") { return try parseEscapedString(from: start) }
            index += 1
        }
        throw .unexpectedEnd
    }

    /// The rest of a string that holds an escape, from `start` (its first byte) with `index` at the escape.
    package mutating func parseEscapedString(from start: Int) throws(JSONError) -> String {
        var text = Array(bytes[start..<index])
        while true {
            guard index < bytes.count else { throw .unexpectedEnd }
            let c = bytes[index]
            if c == UInt8(ascii: "\"") {
                index += 1
                return String(decoding: text, as: UTF8.self)
            }
            if c < 0x20 { throw .unexpectedCharacter(offset: index) }
            index += 1
            if c != UInt8(ascii: "\\") {
                text.append(c)
                continue
            }
            let escapeOffset = index - 1
            guard index < bytes.count else { throw .unexpectedEnd }
            let e = bytes[index]
            index += 1
            switch e {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(e)
            case UInt8(ascii: "b"): text.append(0x08)
            case UInt8(ascii: "f"): text.append(0x0C)
            case UInt8(ascii: "n"): text.append(0x0A)
            case UInt8(ascii: "r"): text.append(0x0D)
            case UInt8(ascii: "t"): text.append(0x09)
            case UInt8(ascii: "u"):
                var code = try parseHex4()
                if (0xD800...0xDBFF).contains(code) {
                    guard index + 6 <= bytes.count, bytes[index] == UInt8(ascii: "\\"),
                        bytes[index + 1] == UInt8(ascii: "u")
                    else {
                        throw .invalidEscape(offset: escapeOffset)
                    }
                    index += 2
                    let low = try parseHex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw .invalidEscape(offset: escapeOffset) }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let scalar = Unicode.Scalar(code) else { throw .invalidEscape(offset: escapeOffset) }
                text.append(contentsOf: UTF8.encode(scalar)!)
            default: throw .invalidEscape(offset: escapeOffset)
            }
        }
    }
}
