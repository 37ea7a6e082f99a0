import Glibc

/// Listing a directory through a descriptor: each listing reads through a new descriptor on the directory,
/// so that concurrent listings share no offset.
extension FileDescriptor {
    /// The names in this directory, streamed one at a time to `body` (never `.` or `..`).
    package func forEachEntry(_ body: (FileName, UInt8) -> Void) throws(Errno) {
        try forEachRawEntry { name, type in body(FileName(bytes: Array(name)), type) }
    }

    /// The names in this directory as raw bytes valid only during the call, without copying them:
    /// the hot path of listing a large queue.
    /// Reads through a new descriptor on the same directory, so concurrent listings do not share an offset.
    package func forEachRawEntry(_ body: (UnsafeBufferPointer<UInt8>, UInt8) -> Void) throws(Errno) {
        try forEachRawEntryWithInode { name, type, _ in body(name, type) }
    }

    /// The same, with each entry's inode number: what tells an entry apart across two listings without
    /// keeping its name.
    package func forEachRawEntryWithInode(_ body: (UnsafeBufferPointer<UInt8>, UInt8, UInt64) -> Void) throws(Errno) {
        try forEachRawEntryWithInode(ofDirectory: FileName("."), sameAs: nil, body)
    }

    /// The same for the directory `name` in this one, opened by name for this listing (not following a
    /// link) and refused with ESTALE when it is no longer the directory `held` (device and inode): a lookup
    /// by name is what makes a network file system's client ask the server afresh.
    package func forEachRawEntryWithInode(
        ofDirectory name: FileName, sameAs held: FileStatus?,
        _ body: (UnsafeBufferPointer<UInt8>, UInt8, UInt64) -> Void
    ) throws(Errno) {
        let own = try open(name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW)
        if let held {
            let status: FileStatus
            do { status = try own.status() } catch {
                own.close()
                throw error
            }
            guard status.device == held.device, status.inode == held.inode else {
                own.close()
                throw Errno(rawValue: ESTALE)
            }
        }
        guard let stream = Glibc.fdopendir(own.rawValue) else {
            let error = Errno.current
            own.close()
            throw error
        }
        defer { Glibc.closedir(stream) }
        let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
        while true {
            errno = 0
            guard let entry = Glibc.readdir(stream) else {
                if errno != 0 { throw Errno.current }
                return
            }
            let start = UnsafeRawPointer(entry).advanced(by: nameOffset).assumingMemoryBound(to: UInt8.self)
            let name = UnsafeBufferPointer(
                start: start, count: strlen(UnsafeRawPointer(start).assumingMemoryBound(to: CChar.self)))
            if name.count == 1 && name[0] == 0x2E || name.count == 2 && name[0] == 0x2E && name[1] == 0x2E { continue }
            body(name, entry.pointee.d_type, UInt64(entry.pointee.d_ino))
        }
    }

    /// All names in this directory.
    package func entries() throws(Errno) -> [FileName] {
        var names: [FileName] = []
        try forEachEntry { name, _ in names.append(name) }
        return names
    }
}
