import Glibc
import SpoolSystem

/// A failed system call on the spool that is not the operation's fault: every operation it touched stays
/// where it was (or its claim is returned), and the run ends with a sysexits code instead of 0.
package struct SystemCallError: Error, Sendable, CustomStringConvertible {
    /// What spool was doing: "read", "claim", "list", "file", ….
    package let action: String
    /// The path it was doing it on.
    package let path: String
    /// The error.
    package let error: Errno

    /// A fault while doing `action` on `path`.
    package init(_ action: String, _ path: String, _ error: Errno) {
        self.action = action
        self.path = path
        self.error = error
    }

    /// Where the fault lies.
    package var kind: ErrnoClass { error.faultClass }

    /// The sysexits code: 75 when retrying later is the remedy, 74 otherwise.
    package var exitCode: Int32 { kind.exitCode }

    /// The message: what failed on which path, that nothing was moved, and what the operator can do.
    package var description: String {
        "cannot \(action) \(path): \(error) (\(error.symbolicName)); "
            + "\(action == "list" ? "no operation was moved" : "the operation stays where it is"). \(advice)"
    }

    /// What the operator can do about it.
    package var advice: String {
        // Which errors mean a network file system out of reach is the errno table's to say (ErrnoClass.swift).
        if kind == .disconnected {
            return "The spool's network file system is out of reach; the next run (or the watcher, in a while) goes "
                + "on once it is back."
        }
        return switch error.rawValue {
        case EMFILE, ENFILE: "Raise the open-file limit (ulimit -n, LimitNOFILE=) or lower --concurrency."
        case ENOSPC, EDQUOT: "Free space on the spool's file system; the next run goes on."
        case ENOMEM, ENOBUFS: "The system is short of memory; the next run goes on."
        case EACCES, EPERM: "Run spool-send as the spool's owner, or give the file mode 0600 and that owner."
        case EROFS: "The file system is read-only; remount it read-write."
        case ENODEV: "The spool's file system went away; remount it and run again."
        default:
            kind.passes ? "Run again later." : "Check the file system (dmesg); the next run goes on once it is healthy."
        }
    }
}

extension Errno {
    /// The C names of the errors spool meets, by number, for `symbolicName`.
    package static let symbolicNames: [Int32: String] = [
        ENOENT: "ENOENT", EINTR: "EINTR", EIO: "EIO", ENXIO: "ENXIO", EBADF: "EBADF", EAGAIN: "EAGAIN",
        ENOMEM: "ENOMEM", EACCES: "EACCES", EPERM: "EPERM", EBUSY: "EBUSY", EEXIST: "EEXIST", EXDEV: "EXDEV",
        ENODEV: "ENODEV", ENOTDIR: "ENOTDIR", EISDIR: "EISDIR", EINVAL: "EINVAL", ENFILE: "ENFILE",
        EMFILE: "EMFILE", EFBIG: "EFBIG", ENOSPC: "ENOSPC", EROFS: "EROFS", ELOOP: "ELOOP",
        ENAMETOOLONG: "ENAMETOOLONG", ENOSYS: "ENOSYS", EDQUOT: "EDQUOT", ESTALE: "ESTALE", ENOTCONN: "ENOTCONN",
        ETIMEDOUT: "ETIMEDOUT", EOVERFLOW: "EOVERFLOW", ENOBUFS: "ENOBUFS", EUCLEAN: "EUCLEAN",
        EREMOTEIO: "EREMOTEIO", EILSEQ: "EILSEQ", ENOLINK: "ENOLINK", ESHUTDOWN: "ESHUTDOWN",
        ECONNABORTED: "ECONNABORTED", EHOSTDOWN: "EHOSTDOWN", ESRCH: "ESRCH", ECONNRESET: "ECONNRESET",
        EHOSTUNREACH: "EHOSTUNREACH", ENETUNREACH: "ENETUNREACH", EBADFD: "EBADFD",
    ]

    /// The C name of the error (EIO, EMFILE, …), for messages an operator greps for.
    package var symbolicName: String { Errno.symbolicNames[rawValue] ?? "errno \(rawValue)" }
}
