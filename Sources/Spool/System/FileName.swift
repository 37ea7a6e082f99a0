import Glibc

/// One directory entry's name as the raw bytes the kernel gave, which need not be valid UTF-8.
package struct FileName: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The name's bytes, without a terminating NUL.
    package var bytes: [UInt8]

    /// A name made of raw bytes.
    package init(bytes: [UInt8]) { self.bytes = bytes }

    /// A name made of a string's UTF-8 bytes.
    package init(_ string: String) { self.bytes = Array(string.utf8) }

    /// The name as a string, or nil when it is not valid UTF-8.
    package var string: String? {
        String(validating: bytes, as: UTF8.self)
    }

    /// Whether the name is safe to show and to use as an operation id:
    /// valid UTF-8, no control characters, no slash, not `.` or `..`.
    package var isPlain: Bool {
        guard let string, !bytes.isEmpty, bytes != [0x2E], bytes != [0x2E, 0x2E] else { return false }
        // C1 controls (U+0080 to U+009F, CSI among them) steer a terminal as the ASCII ones do.
        return !bytes.contains { $0 < 0x20 || $0 == 0x7F || $0 == 0x2F }
            && !string.unicodeScalars.contains { (0x80...0x9F).contains($0.value) }
    }

    /// Whether the name starts with a dot; such entries are ignored, as maildir readers do.
    package var isHidden: Bool { bytes.first == 0x2E }

    /// The name with every byte that is not printable ASCII escaped as `\xNN`, for messages.
    package var escaped: String {
        // A backslash is escaped too, so that a name holding `\x0a` reads apart from one holding a line feed.
        if isPlain, let string, !bytes.contains(0x5C) { return string }
        var out = ""
        for byte in bytes {
            if byte >= 0x20, byte < 0x7F, byte != 0x5C {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "\\x" + String(byte, radix: 16, uppercase: false).leftPadded(to: 2)
            }
        }
        return out
    }

    /// Byte-wise order, the same as `ls` in the C locale.
    package static func < (lhs: FileName, rhs: FileName) -> Bool {
        lhs.bytes.lexicographicallyPrecedes(rhs.bytes)
    }

    /// Calls `body` with the name as a NUL-terminated C string.
    package func withCString<R>(_ body: (UnsafePointer<CChar>) throws -> R) rethrows -> R {
        var terminated = bytes
        terminated.append(0)
        return try terminated.withUnsafeBufferPointer { buffer in
            try buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { try body($0) }
        }
    }

    /// The name as `escaped` shows it.
    package var description: String { escaped }
}

extension String {
    /// The string padded on the left with zeros to at least `width` characters.
    package func leftPadded(to width: Int, with pad: Character = "0") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }
}

extension FileName {
    /// `path` from `/`, against the working directory when it is relative: for a program that runs
    /// elsewhere (a handler runs in `/`).
    package static func absolutePath(_ path: String) -> String {
        guard !path.hasPrefix("/") else { return path }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX))
        guard getcwd(&buffer, buffer.count) != nil else { return path }
        let directory = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return (directory == "/" ? "" : directory) + "/" + (path.hasPrefix("./") ? String(path.dropFirst(2)) : path)
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs (HTTP's optional whitespace).
    package func trimmingWhitespace() -> String {
        let text = String(self), bytes = text.utf8
        guard let first = bytes.firstIndex(where: { $0 != 0x20 && $0 != 0x09 }) else { return "" }
        let last = bytes.lastIndex(where: { $0 != 0x20 && $0 != 0x09 })!
        return String(decoding: bytes[first...last], as: UTF8.self)
    }
}
