import Glibc
import SpoolDocument
import SpoolNames
import SpoolSystem
import SpoolTransport

/// The `ID.why` file beside a filed operation: `field: value` lines, written once by `text` and read back
/// by `Spool.reason(of:in:)`, nowhere else.
public struct FilingReason: Sendable, Equatable {
    /// The fields in order: `reason` first, then `status`, `attempts`, `last-error`, … as the outcome gave them.
    public var fields: [(String, String)]

    /// A reason made of these fields.
    public init(_ fields: [(String, String)]) { self.fields = fields }


    /// The value of the first field named `name`.
    public subscript(_ name: String) -> String? { fields.first { $0.0 == name }?.1 }

    public static func == (a: FilingReason, b: FilingReason) -> Bool {
        a.fields.count == b.fields.count && zip(a.fields, b.fields).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
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
        return Array(text.utf8)
    }

    /// The fields of a reason file's text.
    package static func parse(_ bytes: [UInt8]) -> [(String, String)] {
        String(decoding: bytes, as: UTF8.self).split(separator: "\n").compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), String(line[line.index(after: colon)...].drop { $0 == " " }))
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
    /// Reads the `ID.why` reason beside a filed operation; empty when there is none.
    public func reason(of id: String, in folder: Folder) -> FilingReason {
        guard let fd = try? directory(folder).open(FileName(id + ".why"), O_RDONLY | O_NOFOLLOW | O_NONBLOCK) else {
            return FilingReason([(String, String)]())
        }
        defer { fd.close() }
        guard let (bytes, _) = try? fd.readAll(limit: 64 * 1024) else { return FilingReason([(String, String)]()) }
        return FilingReason(FilingReason.parse(bytes))
    }
}

extension String {
    /// The string with CR, LF and other control characters shown as `\n`-style escapes, to keep one field on one line.
    package func replacingControlCharacters() -> String {
        var out = ""
        for scalar in unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                out += "\\x" + String(scalar.value, radix: 16).leftPadded(to: 2)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
