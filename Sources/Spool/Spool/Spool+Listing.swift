import SpoolSystem

/// Listing a folder: each listing opens the folder by name from the spool directory, not through the
/// descriptor held since the spool was opened.
///
/// Why: on a replicated network file system a client decides which replica serves a directory when it
/// looks the directory up by name. GlusterFS writes a drop made while one replica was out of the dropping
/// host's reach to the others only; a host that keeps listing through an old descriptor may go on reading
/// the replica that missed it, see a newer write of the same key and send that first. A lookup by name
/// makes the client ask every replica which of them is current (through FUSE, when the mount's entry timeout
/// is zero, as spool(5)'s recipe says; else the kernel answers from its cache). Locally it costs one `fstat`
/// more.
extension Spool {
    /// The names in `folder`, streamed to `body` (never `.` or `..`); ESTALE when the folder was made anew
    /// under this spool, as `reachesItsPath` then says.
    package func forEachEntry(in folder: Folder, _ body: (FileName, UInt8) -> Void) throws(Errno) {
        try forEachRawEntryWithInode(in: folder) { name, type, _ in body(FileName(bytes: Array(name)), type) }
    }

    /// The names in `folder` as raw bytes valid only during the call: the hot path of a large queue.
    package func forEachRawEntry(in folder: Folder, _ body: (UnsafeBufferPointer<UInt8>, UInt8) -> Void) throws(Errno)
    {
        try forEachRawEntryWithInode(in: folder) { name, type, _ in body(name, type) }
    }

    /// The same, with each entry's inode number.
    package func forEachRawEntryWithInode(
        in folder: Folder, _ body: (UnsafeBufferPointer<UInt8>, UInt8, UInt64) -> Void
    ) throws(Errno) {
        let index = Folder.allCases.firstIndex(of: folder)!
        try root.forEachRawEntryWithInode(
            ofDirectory: FileName(folder.rawValue), sameAs: folderStatuses[index], body)
    }
}
