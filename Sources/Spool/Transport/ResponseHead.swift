/// The head of a server's answer, read line by line as the engine receives it (libcurl's header callback
/// hands on each line, the status lines of interim 1xx answers and trailers included). The engine's only
/// reader of a server's status and fields, kept free of I/O so that it can be fuzzed (`Fuzz/`, target `head`).
package struct ResponseHead: Sendable {
    /// The status of the last status line: 100 to 999, or 0 when that line had no three-digit status.
    package private(set) var status = 0
    /// The fields of the last head, names lower-cased; a repeated field's values joined with ", " (RFC 9110
    /// section 5.3), CR, LF and NUL replaced by spaces (section 5.5), leading and trailing blanks trimmed.
    package private(set) var fields: [String: String] = [:]
    /// Whether a final (not 1xx) head has ended: later lines are trailers, not kept.
    package private(set) var isComplete = false
    /// Whether the last status line was HTTP/1.x.
    package private(set) var isHTTP1 = false
    /// Whether the lines went past `limit` bytes; the engine then ends the transfer.
    package private(set) var isTooLarge = false
    /// The most bytes of head lines read, all heads of one answer together.
    package let limit: Int
    private var byteCount = 0
    /// The field the last line added to, which an obsolete folded line continues.
    private var lastName: String?
    /// Whether that line's value was empty.
    private var lastWasEmpty = false

    /// An empty head that reads at most `limit` bytes of lines.
    package init(limit: Int) { self.limit = limit }

    /// Reads one line (its CR LF included, as libcurl gives it); false when the head is too large.
    package mutating func take(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        byteCount += line.count
        if byteCount > limit {
            isTooLarge = true
            return false
        }
        // Byte-wise, as this runs for every line of every answer. Trimmed as bytes: in Swift "\r\n" is one
        // Character, neither "\r" nor "\n".
        var end = line.count
        while end > 0, line[end - 1] == 0x0A || line[end - 1] == 0x0D { end -= 1 }
        let text = UnsafeBufferPointer(rebasing: line[..<end])
        // A status line starts a new head, also after one that looked final; a trailer's name cannot hold
        // the "/" of "HTTP/". Any other line after a final head is a trailer, not kept.
        if text.starts(with: "HTTP/".utf8) {
            status = ResponseHead.statusCode(text)
            // Room for a usual head's fields at once, rather than grown twice on the way.
            fields = Dictionary(minimumCapacity: 8)
            lastName = nil
            isHTTP1 = text.starts(with: "HTTP/1".utf8)
            isComplete = false
        } else if isComplete {
            return true
        } else if text.isEmpty {
            isComplete = status >= 200
        } else if text[0] == 0x20 || text[0] == 0x09 {
            // RFC 9112 section 5.2: an obsolete line folding continues the field before, joined by a space.
            if let name = lastName, let value = fields[name] {
                // After an empty line of a repeated field, the fold continues that new (empty) list element.
                let more = ResponseHead.value(text, from: 0)
                let joint = lastWasEmpty ? ", " : " "
                fields[name] = more.isEmpty ? value : value.isEmpty ? more : value + joint + more
                if !more.isEmpty { lastWasEmpty = false }
            }
        } else if let colon = text.firstIndex(of: UInt8(ascii: ":")) {
            // A blank before the colon is removed, as RFC 9112 section 5.1 tells a proxy to; a name that is
            // still not a token is no field, and the line is dropped.
            var nameEnd = colon
            while nameEnd > 0, text[nameEnd - 1] == 0x20 || text[nameEnd - 1] == 0x09 { nameEnd -= 1 }
            let name = text[..<nameEnd]
            guard !name.isEmpty, name.allSatisfy(HTTPSyntax.isTokenCharacter) else {
                lastName = nil
                return true
            }
            // Lower-cased straight into the string: a token is ASCII, and no array is made per line.
            let key = HTTPSyntax.lowercasedText(name)
            let value = ResponseHead.value(text, from: colon + 1)
            // Empty list elements are ignored (RFC 9110 section 5.6.1), so that a join never ends in ", ".
            // One lookup for a new field, the usual case; a repeated one is joined in a second.
            if let earlier = fields.updateValue(value, forKey: key) {
                fields[key] = earlier.isEmpty ? value : value.isEmpty ? earlier : earlier + ", " + value
            }
            lastName = key
            lastWasEmpty = value.isEmpty
        } else {
            lastName = nil
        }
        return true
    }

    /// Forgets everything read: the engine sends the request again on a fresh connection.
    package mutating func reset() { self = ResponseHead(limit: limit) }

    /// The status code of a status line (`HTTP-version SP 3DIGIT SP reason`, RFC 9112 section 4), or 0. Read
    /// as leniently as libcurl reads it: blanks after the version, anything but a digit after the status.
    static func statusCode(_ line: UnsafeBufferPointer<UInt8>) -> Int {
        guard var index = line.firstIndex(where: { $0 == 0x20 || $0 == 0x09 }) else { return 0 }
        while index < line.count, line[index] == 0x20 || line[index] == 0x09 { index += 1 }
        let digits = line[index...].prefix { (0x30...0x39).contains($0) }
        guard digits.count == 3, digits.first != 0x30 else { return 0 }
        return digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

    /// A field's value from `start`: CR, LF and NUL made spaces, then blanks trimmed at both ends.
    static func value(_ line: UnsafeBufferPointer<UInt8>, from start: Int) -> String {
        let isBlank = { (byte: UInt8) in byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A || byte == 0 }
        var (start, stop) = (start, line.count)
        while start < stop, isBlank(line[start]) { start += 1 }
        while stop > start, isBlank(line[stop - 1]) { stop -= 1 }
        let bytes = line[start..<stop]
        guard bytes.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) else {
            return String(decoding: bytes, as: UTF8.self)
        }
        return String(decoding: bytes.map { $0 == 0x0D || $0 == 0x0A || $0 == 0 ? 0x20 : $0 }, as: UTF8.self)
    }
}
