import Glibc
import SpoolDocument
import SpoolNames
import SpoolSystem
import SpoolTransport

/// The spool's own small files in its root (`.idle`, `.origins`): caches that a crash may lose, so written
/// through `tmp/` and a rename that replaces the last one, without fsync.
extension Spool {
    /// The bytes of the regular file `name` in the spool root, at most `limit`; nil when it is missing,
    /// not a regular file or unreadable.
    package func readHint(_ name: FileName, limit: Int) -> [UInt8]? {
        guard let fd = try? root.open(name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK) else { return nil }
        defer { fd.close() }
        guard let status = try? fd.status(), status.isRegularFile, let (bytes, _) = try? fd.readAll(limit: limit) else {
            return nil
        }
        return bytes
    }

    /// Replaces `name` in the spool root with `text`, written in `tmp/` first; a failure leaves the old one.
    package func writeHint(_ name: FileName, _ text: String) {
        let temporary = FileName(UniqueName.next().id + "." + (name.string ?? "hint").drop { $0 == "." })
        let tmp = directory(.tmp)
        guard let fd = try? tmp.open(temporary, O_WRONLY | O_CREAT | O_EXCL, mode: Spool.fileMode) else { return }
        let written = (try? fd.writeAll(Array(text.utf8))) != nil
        fd.close()
        if !written || (try? tmp.replace(temporary, in: root, as: name)) == nil {
            try? tmp.unlink(temporary)
        }
    }
}
