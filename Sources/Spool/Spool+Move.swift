import Glibc

extension Spool {
    /// Moves the entry `name` from `folder` to `failed/` or `conflict/` under its id, and writes the reason
    /// beside it as `ID.why`. Returns the name it was filed under and, if the reason could not be written
    /// (a full disk), why; nil when the entry had already gone. Throws only when the move itself failed.
    ///
    /// The operation moves first and its reason follows: a crash in between leaves the operation in one place
    /// without a reason, never a reason for an operation that is still queued.
    @discardableResult
    public func file(_ name: FileName, from folder: Folder, to destination: Folder, id: String, reason: [(String, String)]) throws(Errno) -> (name: String, reasonError: Errno?)? {
        let target = directory(destination)
        var filedAs = id
        var suffix = 1
        while true {
            do {
                try directory(folder).rename(name, to: target, as: FileName(filedAs))
                break
            } catch .fileExists where suffix < 1000 {
                // An earlier operation with the same id was filed and not yet cleared: keep both.
                filedAs = "\(id).\(suffix)"
                suffix += 1
            } catch .noSuchFileOrDirectory {
                return nil
            }
        }
        var text = "id: \(filedAs)\nfolder: \(destination.rawValue)\nat: \(Timestamp.formatRFC3339(Timestamp.now()))\n"
        for (field, value) in reason {
            text += "\(field): \(value.replacingControlCharacters())\n"
        }
        do {
            try writeSidecar(FileName(filedAs + ".why"), in: destination, contents: Array(text.utf8))
            try target.sync()
        } catch {
            return (filedAs, error)
        }
        return (filedAs, nil)
    }

    /// Writes a small file into `folder` through `tmp/` and a rename, replacing an older one of that name.
    func writeSidecar(_ name: FileName, in folder: Folder, contents: [UInt8]) throws(Errno) {
        let temporary = FileName(UniqueName.next().id + ".why")
        let tmp = directory(.tmp)
        let fd = try tmp.open(temporary, O_WRONLY | O_CREAT | O_EXCL, mode: Spool.fileMode)
        do {
            defer { fd.close() }
            try fd.writeAll(contents)
            try fd.sync()
        } catch {
            try? tmp.unlink(temporary)
            throw error
        }
        do {
            // Replacing is right here: a reason left by an earlier filing of the same id is stale.
            try tmp.replace(temporary, in: directory(folder), as: name)
        } catch {
            try? tmp.unlink(temporary)
            throw error
        }
    }

    /// Reads the `ID.why` reason beside a filed operation as field/value pairs; empty when there is none.
    public func reason(of id: String, in folder: Folder) -> [(String, String)] {
        guard let fd = try? directory(folder).open(FileName(id + ".why"), O_RDONLY | O_NOFOLLOW | O_NONBLOCK),
              let (bytes, _) = try? fd.readAll(limit: 64 * 1024)
        else { return [] }
        fd.close()
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), String(line[line.index(after: colon)...].drop { $0 == " " }))
        }
    }
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
