/// Which file a name led to, as far as a status can tell: its inode, last modification and size. Why not the
/// inode alone: a number freed by a removal can be given to the next file made, and a merge removes the file
/// it replaces; a rename (a claim, a hold) changes none of the three, a rewrite changes the time, and a merge's
/// file is always later than the one it replaces (`Spool.merge`).
public struct FileIdentity: Equatable, Sendable {
    /// The inode number.
    public let inode: UInt64
    /// Last modification, in nanoseconds since the epoch.
    public let modifiedNanoseconds: Int64
    /// Size in bytes.
    public let size: Int
}

extension FileStatus {
    /// This file's identity (`FileIdentity`).
    public var identity: FileIdentity {
        FileIdentity(inode: inode, modifiedNanoseconds: modifiedNanoseconds, size: size)
    }
}
