import Glibc

/// The parts of `stat(2)` that spool looks at.
package struct FileStatus: Sendable {
    /// File type and permission bits.
    package let mode: mode_t
    /// Size in bytes.
    package let size: Int
    /// The inode number: with `device`, what tells two names of one file.
    package let inode: UInt64
    /// Number of hard links.
    package let linkCount: Int
    /// Owner.
    package let owner: uid_t
    /// Group.
    package let group: gid_t
    /// Device the file lives on.
    package let device: UInt64
    /// Last modification, in microseconds since the epoch.
    package let modifiedMicroseconds: Int64
    /// Last status change (a rename sets it), in seconds since the epoch.
    package let changedSeconds: Int64
    /// Last modification in nanoseconds since the epoch: for a folder, when an entry last came or went.
    package let modifiedNanoseconds: Int64

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
    package var isRegularFile: Bool { mode & S_IFMT == S_IFREG }
    /// Whether this is a directory.
    package var isDirectory: Bool { mode & S_IFMT == S_IFDIR }
    /// Whether this is a symbolic link.
    package var isSymbolicLink: Bool { mode & S_IFMT == S_IFLNK }
    /// The permission bits alone.
    package var permissions: mode_t { mode & 0o7777 }

    /// A word for the file type, for messages.
    package var kindDescription: String {
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
