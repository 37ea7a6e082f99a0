import Glibc

extension Spool {
    /// Moves the entry `name` from `folder` to `failed/` or `conflict/` under its id, with its reason beside
    /// it as `ID.why`. Returns the name it was filed under, or nil when the entry had already gone.
    ///
    /// The reason comes first, so that the pair is complete after a crash at any step:
    /// 1. the reason, naming the entry it explains (`source:`), is written to `tmp/` and fsynced;
    /// 2. it is renamed into the destination as `ID.why`, which also reserves the name `ID`;
    /// 3. the operation is renamed to `ID`; 4. the destination is fsynced.
    /// A crash after 2 leaves a reason whose operation has not moved: `finishFilings` completes the move.
    /// When a step fails, the reason is taken back and the operation stays where it was.
    @discardableResult
    public func file(_ name: FileName, from folder: Folder, to destination: Folder, id: String, reason: [(String, String)]) throws(FilingError) -> String? {
        let filed: String?
        do { filed = try fileUnsynced(name, from: folder, to: destination, id: id, reason: reason) } catch { throw .notMoved(error) }
        guard let filed else { return nil }
        CrashPoint.reach("file.moved")
        // Filed: a failed fsync of the folder is reported, but the operation has moved all the same.
        do { try directory(destination).sync() } catch { throw .unsynced(filedAs: filed, error) }
        return filed
    }

    /// Steps 1 to 3 of `file`.
    func fileUnsynced(_ name: FileName, from folder: Folder, to destination: Folder, id: String, reason: [(String, String)]) throws(Errno) -> String? {
        let target = directory(destination)
        var suffix = 0
        while true {
            let filedAs = suffix == 0 ? id : "\(id).\(suffix)"
            suffix += 1
            // An earlier operation with the same id was filed and not yet cleared: keep both.
            if suffix < 1000, (try? target.status(of: FileName(filedAs))) != nil { continue }
            var text = "id: \(filedAs)\nfolder: \(destination.rawValue)\nat: \(Timestamp.formatRFC3339(Timestamp.now()))\n"
            text += "source: \(folder.rawValue)/\(Spool.encodeSource(name))\n"
            for (field, value) in reason {
                text += "\(field): \(value.replacingControlCharacters())\n"
            }
            let why = FileName(filedAs + ".why")
            do {
                try writeSidecar(why, in: destination, contents: Array(text.utf8))
            } catch .fileExists where suffix < 1000 {
                continue
            }
            CrashPoint.reach("file.reason-placed")
            do {
                try move(name, from: folder, to: destination, as: FileName(filedAs))
            } catch .fileExists where suffix < 1000 {
                // `finishFilings` may be completing this very filing by link: then the name is ours.
                if let mine = try? directory(folder).status(of: name), let there = try? target.status(of: FileName(filedAs)),
                   mine.inode == there.inode, mine.device == there.device {
                    return filedAs
                }
                try? target.unlink(why)
                continue
            } catch .noSuchFileOrDirectory {
                // Moved by another worker, or by `finishFilings` completing this very filing.
                if (try? target.status(of: FileName(filedAs))) != nil { return filedAs }
                try? target.unlink(why)
                return nil
            } catch {
                try? target.unlink(why)
                throw error
            }
            return filedAs
        }
    }

    /// Writes a small file into `folder` through `tmp/`: written, fsynced, then renamed in without replacing
    /// anything (EEXIST when the name is taken).
    func writeSidecar(_ name: FileName, in folder: Folder, contents: [UInt8]) throws(Errno) {
        let temporary = FileName(UniqueName.next().id + ".why")
        let tmp = directory(.tmp)
        let fd = try tmp.open(temporary, O_WRONLY | O_CREAT | O_EXCL, mode: Spool.fileMode)
        do {
            defer { fd.close() }
            try fd.writeAll(contents)
            try fd.sync()
            CrashPoint.reach("file.reason-written")
            try move(temporary, from: .tmp, to: folder, as: name)
        } catch {
            try? tmp.unlink(temporary)
            throw error
        }
    }

    /// Reads the `ID.why` reason beside a filed operation as field/value pairs; empty when there is none.
    public func reason(of id: String, in folder: Folder) -> [(String, String)] {
        guard let fd = try? directory(folder).open(FileName(id + ".why"), O_RDONLY | O_NOFOLLOW | O_NONBLOCK) else { return [] }
        defer { fd.close() }
        guard let (bytes, _) = try? fd.readAll(limit: 64 * 1024) else { return [] }
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), String(line[line.index(after: colon)...].drop { $0 == " " }))
        }
    }

    /// A file name as printable ASCII that `decodeSource` turns back into the same bytes.
    static func encodeSource(_ name: FileName) -> String {
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
    static func decodeSource(_ text: Substring) -> FileName? {
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
}

/// Why `Spool.file` failed.
public enum FilingError: Error {
    /// Before the move: the operation stays where it was, and no reason is left behind.
    case notMoved(Errno)
    /// After the move: the operation is filed with its reason, but the folder's fsync failed.
    case unsynced(filedAs: String, Errno)
}

extension String {
    /// The string with CR, LF and other control characters shown as `\n`-style escapes, to keep one field on one line.
    func replacingControlCharacters() -> String {
        var out = ""
        for scalar in unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: out += "\\x" + String(scalar.value, radix: 16).leftPadded(to: 2)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
