import Glibc
import SpoolSystem

/// The `ID.why` file beside a filed operation: `field: value` lines, written once by `text` and read back
/// by `Spool.reason(of:in:)`, nowhere else. For a conflict, the server's version of the resource follows
/// the fields after a blank line, as a message's body follows its head: the pair of files stays the whole
/// record, moved and removed as before.
package struct FilingReason: Sendable, Equatable {
    /// The fields in order: `reason` first, then `status`, `attempts`, `last-error`, … as the outcome gave them.
    package var fields: [(String, String)]
    /// The bytes after the fields: the server's version of a conflicting resource (`theirs-*` fields say
    /// what it is), or nil.
    package var body: [UInt8]?

    /// A reason made of these fields.
    package init(_ fields: [(String, String)], body: [UInt8]? = nil) {
        self.fields = fields
        self.body = body
    }


    /// The value of the first field named `name`.
    package subscript(_ name: String) -> String? { fields.first { $0.0 == name }?.1 }

    /// Equal when the fields match in order and the bodies match; written out, as tuples are not Equatable.
    package static func == (a: FilingReason, b: FilingReason) -> Bool {
        a.fields.count == b.fields.count && zip(a.fields, b.fields).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
            && a.body == b.body
    }

    /// The file's text for operation `id` filed in `folder` from `source` (the entry it was written for,
    /// so that recovery can finish a filing cut short).
    package func text(id: String, folder: Spool.Folder, source: Spool.Folder, name: FileName, at time: Int64) -> [UInt8]
    {
        var text = "id: \(id)\nfolder: \(folder.rawValue)\nat: \(Timestamp.formatRFC3339(time))\n"
        text += "source: \(source.rawValue)/\(FilingReason.encodeSource(name))\n"
        for (field, value) in fields {
            text += "\(field): \(value.replacingControlCharacters())\n"
        }
        guard let body else { return Array(text.utf8) }
        return Array((text + "\n").utf8) + body
    }

    /// Where the fields of a reason file's text end: at its first blank line, or its end.
    package static func fieldsEnd(_ bytes: [UInt8]) -> Int {
        var index = 0
        while index < bytes.count {
            if bytes[index] == 0x0A { return index }
            index = (bytes[index...].firstIndex(of: 0x0A) ?? bytes.count - 1) + 1
        }
        return bytes.count
    }

    /// A reason file's text: its fields and, after a blank line, its body.
    package static func parseFile(_ bytes: [UInt8]) -> FilingReason {
        let end = fieldsEnd(bytes)
        return FilingReason(parse(Array(bytes[..<end])), body: end < bytes.count ? Array(bytes[(end + 1)...]) : nil)
    }

    /// The fields of a reason file's text (what comes before its first blank line).
    /// Read as bytes, and only the one space the writers put after the colon dropped: a value may itself start
    /// with blanks, or with a combining mark that would fuse with that space into one Character.
    package static func parse(_ bytes: [UInt8]) -> [(String, String)] {
        bytes[..<fieldsEnd(bytes)].split(separator: 0x0A).compactMap { line in
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return nil }
            let start = colon + 1 < line.endIndex && line[colon + 1] == 0x20 ? colon + 2 : colon + 1
            return (String(decoding: line[..<colon], as: UTF8.self), String(decoding: line[start...], as: UTF8.self))
        }
    }

    /// A file name as printable ASCII that `decodeSource` turns back into the same bytes.
    package static func encodeSource(_ name: FileName) -> String {
        var out = ""
        for byte in name.bytes {
            if byte > 0x20, byte < 0x7F, byte != 0x25 {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }

    /// The bytes `encodeSource` wrote, or nil for text it cannot have written.
    package static func decodeSource(_ text: Substring) -> FileName? {
        var bytes: [UInt8] = []
        var utf8 = text.utf8.makeIterator()
        while let byte = utf8.next() {
            guard byte == 0x25 else { bytes.append(byte); continue }
            guard let high = utf8.next(), let low = utf8.next(),
                  let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(value)
        }
        return bytes.isEmpty ? nil : FileName(bytes: bytes)
    }

    /// The folder and entry this reason was written for, from its `source:` field.
    package var source: (Spool.Folder, FileName)? {
        guard let field = self["source"], let slash = field.firstIndex(of: "/"),
              let folder = Spool.Folder(rawValue: String(field[..<slash])),
              let name = FilingReason.decodeSource(field[field.index(after: slash)...]) else { return nil }
        return (folder, name)
    }
}

extension Spool {
    /// The largest reason file read whole: its fields and the server's version it may keep.
    package static let maxReasonBytes = 1024 * 1024

    /// Reads the `ID.why` reason beside a filed operation; empty when there is none. Only its fields (the
    /// first 64 KiB) unless `withBody`: listings stay cheap however large the kept versions are.
    package func reason(of id: String, in folder: Folder, withBody: Bool = false) -> FilingReason {
        guard let fd = try? directory(folder).open(FileName(id + ".why"), O_RDONLY | O_NOFOLLOW | O_NONBLOCK) else {
            return FilingReason([(String, String)]())
        }
        defer { fd.close() }
        guard withBody else {
            guard let (bytes, _) = try? fd.readPrefix(limit: 64 * 1024) else { return FilingReason([]) }
            return FilingReason(FilingReason.parse(bytes))
        }
        guard let (bytes, _) = try? fd.readAll(limit: Spool.maxReasonBytes) else { return FilingReason([]) }
        return FilingReason.parseFile(bytes)
    }
}
