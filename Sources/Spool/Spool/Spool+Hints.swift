import Glibc
import SpoolNames
import SpoolSystem

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
        keepForOwner(fd)
        fd.close()
        if !written || (try? tmp.replace(temporary, in: root, as: name)) == nil {
            try? tmp.unlink(temporary)
        }
    }
}

extension Spool {
    /// Gives a file root made in the spool root to the spool's owner, whose own runs must still read it and
    /// append to it: made by root with mode 0600 (a `spool-ctl retry` under sudo), `.unfiled` would stop
    /// counting the owner's unfiles for good. Only a regular file of root's with one name: the owner may have
    /// planted the name as a hard link to a file of root's elsewhere. A failure is ignored, as the hint's own.
    func keepForOwner(_ fd: FileDescriptor) {
        guard UserDatabase.effectiveUser == 0, users.owner != 0, let status = try? fd.status(), status.isRegularFile,
              status.owner == 0, status.linkCount == 1
        else { return }
        try? fd.changeOwner(to: users.owner)
    }
}

/// `.unfiled`: a byte added each time an operation is put back from `failed/` or `conflict/` (`unfile`, under the
/// lock). A worker that listed the queue earlier in its round (`Worker.PresentIndex`) compares its inode and size
/// with what it saw then, to learn that a dependency it found nowhere may have come back meanwhile. Not a time
/// stamp: the file system keeps those too coarsely to tell two moves a few milliseconds apart.
extension Spool {
    /// The name of the marker in the spool root.
    package static let unfiledMarker = FileName(".unfiled")

    /// Where the marker stands: its inode and size.
    package struct UnfiledMark: Equatable, Sendable {
        /// The marker's inode: a new one when it was started again.
        let inode: UInt64
        /// Its size: one byte more for each unfile.
        let size: Int
    }

    /// The marker now, or nil when nothing was ever unfiled here.
    package func unfiledMark() -> UnfiledMark? {
        (try? root.status(of: Spool.unfiledMarker)).map { UnfiledMark(inode: $0.inode, size: $0.size) }
    }

    /// Adds one byte to the marker, which is started again (a new inode) past 64 KiB. A failure (a full or
    /// read-only spool) is ignored: the move it follows was made, and only a dependant's wait rests on it.
    package func noteUnfiled() {
        let flags = O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW
        guard let fd = try? root.open(Spool.unfiledMarker, flags, mode: Spool.fileMode) else { return }
        keepForOwner(fd)
        _ = try? fd.writeAll([UInt8(ascii: ".")])
        let size = (try? fd.status().size) ?? 0
        fd.close()
        if size > 65536 { writeHint(Spool.unfiledMarker, "") }
    }
}

/// `.waiting`: how many operations wait in a shared spool's `new/`, for its producers, who may drop there but
/// not list it, so that `--max-queue` and the producer policy's `queue` and `bytes` hold for them too. The
/// sender writes what it found at each listing: the count on the first line, then `=UID COUNT BYTES` for
/// each producer (mode 0660, in the drop group); each producer's drop appends `+UID BYTES`, as `.unfiled`
/// counts its unfiles. The counts are the sender's plus the drops since: never less than what waits but for
/// drops made during a listing, and they keep growing while no sender runs, which is when limits matter.
extension Spool {
    /// The file, in the spool root.
    package static let waitingFile = FileName(".waiting")
    /// Its mode: the drop group appends to it.
    package static let waitingFileMode: mode_t = 0o660

    /// What waits, by producer: writes and bytes.
    package typealias Waiting = (count: Int64, bytes: Int64)

    /// What `.waiting` says: the sender's counts at its last listing plus the drops since, in all and by
    /// producer; nil when there is no readable one (no sender has listed this spool yet). One read, one pass.
    package func waitingCounts() -> (total: Int, producers: [UInt32: Waiting])? {
        guard let bytes = readHint(Spool.waitingFile, limit: 1 << 20) else { return nil }
        let digits = bytes.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        guard var total = Int(String(decoding: digits, as: UTF8.self)) else { return nil }
        var producers: [UInt32: Waiting] = [:]
        for line in bytes.dropFirst(digits.count).split(separator: 0x0A) {
            let kind = line.first
            // Every drop counts in all, whatever else its line says.
            if kind == UInt8(ascii: "+") { total += 1 }
            let words = line.dropFirst().split(separator: 0x20).map { Int64(String(decoding: $0, as: UTF8.self)) }
            guard let first = words.first, let uid = first.flatMap(UInt32.init(exactly:)),
                  words.allSatisfy({ ($0 ?? -1) >= 0 })
            else { continue }
            let before = producers[uid] ?? (0, 0)
            if kind == UInt8(ascii: "="), words.count == 3 {
                producers[uid] = (before.count + words[1]!, before.bytes + words[2]!)
            } else if kind == UInt8(ascii: "+"), words.count == 2 {
                producers[uid] = (before.count + 1, before.bytes + words[1]!)
            }
        }
        return (total, producers)
    }

    /// A producer's drops of `sizes` bytes each, counted once their operations are in `new/`: a line
    /// appended for each, in one write. Never made here: a file a producer made would be theirs to rewrite.
    package func noteDropped(by producer: UInt32, sizes: [Int]) {
        guard let fd = try? root.open(Spool.waitingFile, O_WRONLY | O_APPEND | O_NOFOLLOW | O_NONBLOCK) else { return }
        defer { fd.close() }
        guard let status = try? fd.status(), status.isRegularFile else { return }
        _ = try? fd.writeAll(Array(sizes.map { "+\(producer) \($0)\n" }.joined().utf8))
    }

    /// The sender's counts after a listing of `new/`, written when a shared spool's `.waiting` says otherwise.
    /// Made in the spool root and renamed over the last, not through `tmp/` as other hints: `tmp/`'s default
    /// ACL (the package's) keeps the group from every file made there, and the group must append to this one.
    package func noteWaiting(_ count: Int, producers: [UInt32: Waiting] = [:]) {
        guard users.takesProducerDrops, !dropOnly else { return }
        var text = "\(count)\n"
        for (producer, waiting) in producers.sorted(by: { $0.key < $1.key }) {
            text += "=\(producer) \(waiting.count) \(waiting.bytes)\n"
        }
        guard readHint(Spool.waitingFile, limit: 1 << 20) != Array(text.utf8) else { return }
        // One temporary name, the sender's alone (producers cannot write in the root): a crash leaves at most
        // this file, which the next listing writes again.
        let temporary = FileName(".waiting.new")
        let flags = O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW
        guard let fd = try? root.open(temporary, flags, mode: Spool.waitingFileMode) else { return }
        // In the drop group, new/'s, whatever the spool root's group; and whatever the umask left of its bits.
        let dropGroup = folderStatuses[Folder.allCases.firstIndex(of: .new)!].group
        var written = (try? fd.changeGroup(to: dropGroup)) != nil
        written = written && (try? fd.changeMode(to: Spool.waitingFileMode)) != nil
        written = written && (try? fd.writeAll(Array(text.utf8))) != nil
        keepForOwner(fd)
        fd.close()
        if !written || (try? root.replace(temporary, in: root, as: Spool.waitingFile)) == nil {
            try? root.unlink(temporary)
        }
    }
}
