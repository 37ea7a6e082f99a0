/// Which file a name led to, as far as a status can tell: its inode, last modification and size. Why not the
/// inode alone: a number freed by a removal can be given to the next file made, and a merge removes the file
/// it replaces; a rename (a claim, a hold) changes none of the three, a rewrite changes the time, and a merge's
/// file is always later than the one it replaces (`Spool.merge`).
package struct FileIdentity: Equatable, Sendable {
    /// The inode number.
    package let inode: UInt64
    /// Last modification, in nanoseconds since the epoch.
    package let modifiedNanoseconds: Int64
    /// Size in bytes.
    package let size: Int
}

extension FileStatus {
    /// This file's identity (`FileIdentity`).
    package var identity: FileIdentity {
        FileIdentity(inode: inode, modifiedNanoseconds: modifiedNanoseconds, size: size)
    }
}

extension FileDescriptor {
    /// Makes the file's modification time later than `nanoseconds` since the epoch when it is not already, so
    /// that its identity differs from that of a file with that time. The file system keeps times as finely as
    /// it can (ext4 with small inodes whole seconds, FAT two), so the step grows until the time it kept is later.
    package func makeModifiedLater(than nanoseconds: Int64) throws(Errno) {
        for step: Int64 in [1, 1_000, 1_000_000, 1_000_000_000, 2_000_000_000] {
            if try status().modifiedNanoseconds > nanoseconds { return }
            try setModified(nanoseconds: nanoseconds + step)
        }
    }
}
