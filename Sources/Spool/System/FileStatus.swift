import Glibc

/// The parts of `stat(2)` that spool looks at.
public struct FileStatus: Sendable {
    /// File type and permission bits.
    public let mode: mode_t
    /// Size in bytes.
    public let size: Int
    /// The inode number: with `device`, what tells two names of one file.
    public let inode: UInt64
    /// Number of hard links.
    public let linkCount: Int
    /// Owner.
    public let owner: uid_t
    /// Group.
    public let group: gid_t
    /// Device the file lives on.
    public let device: UInt64
    /// Last modification, in microseconds since the epoch.
    public let modifiedMicroseconds: Int64
    /// Last status change (a rename sets it), in seconds since the epoch.
    public let changedSeconds: Int64
    /// Last modification in nanoseconds since the epoch: for a folder, when an entry last came or went.
    public let modifiedNanoseconds: Int64

    /// The status from a `stat` the kernel filled, its times turned into the units above.
    package init(_ st: stat) {
        mode = st.st_mode
        size = Int(st.st_size)
        inode = UInt64(st.st_ino)
        linkCount = Int(st.st_nlink)
        owner = st.st_uid
        group = st.st_gid
        device = UInt64(st.st_dev)
        modifiedMicroseconds = Int64(st.st_mtim.tv_sec) * 1_000_000 + Int64(st.st_mtim.tv_nsec) / 1000
        changedSeconds = Int64(st.st_ctim.tv_sec)
        modifiedNanoseconds = Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec)
    }

    /// Whether this is a regular file.
    public var isRegularFile: Bool { mode & S_IFMT == S_IFREG }
    /// Whether this is a directory.
    public var isDirectory: Bool { mode & S_IFMT == S_IFDIR }
    /// Whether this is a symbolic link.
    public var isSymbolicLink: Bool { mode & S_IFMT == S_IFLNK }
    /// The permission bits alone.
    public var permissions: mode_t { mode & 0o7777 }

    /// A word for the file type, for messages.
    public var kindDescription: String {
        switch mode & S_IFMT {
        case S_IFREG: "regular file"
        case S_IFDIR: "directory"
        case S_IFLNK: "symbolic link"
        case S_IFIFO: "FIFO"
        case S_IFSOCK: "socket"
        case S_IFCHR: "character device"
        case S_IFBLK: "block device"
        default: "unknown file type"
        }
    }
}
