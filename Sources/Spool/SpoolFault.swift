import Glibc

/// A failed system call on the spool that is not the operation's fault: every operation it touched stays
/// where it was (or its claim is returned), and the run ends with a sysexits code instead of 0.
public struct SpoolFault: Error, Sendable, CustomStringConvertible {
    /// What spool was doing: "read", "claim", "list", "file", ….
    public let action: String
    /// The path it was doing it on.
    public let path: String
    /// The error.
    public let error: Errno

    /// A fault while doing `action` on `path`.
    public init(_ action: String, _ path: String, _ error: Errno) {
        self.action = action
        self.path = path
        self.error = error
    }

    /// Where the fault lies.
    public var kind: ErrnoClass { error.faultClass }

    /// The sysexits code: 75 when retrying later is the remedy, 74 otherwise.
    public var exitCode: Int32 { kind == .resource ? ExitCode.temporaryFailure : ExitCode.ioError }

    public var description: String {
        "cannot \(action) \(path): \(error) (\(error.symbolicName)); \(action == "list" ? "no operation was moved" : "the operation stays where it is"). \(advice)"
    }

    /// What the operator can do about it.
    var advice: String {
        switch error.rawValue {
        case EMFILE, ENFILE: "Raise the open-file limit (ulimit -n, LimitNOFILE=) or lower --concurrency."
        case ENOSPC, EDQUOT: "Free space on the spool's file system; the next run goes on."
        case ENOMEM, ENOBUFS: "The system is short of memory; the next run goes on."
        case EACCES, EPERM: "Run spool-send as the spool's owner, or give the file mode 0600 and that owner."
        case EROFS: "The file system is read-only; remount it read-write."
        case ENOTCONN, ESTALE, ENODEV: "The spool's file system went away; remount it and run again."
        default: kind == .resource ? "Run again later." : "Check the file system (dmesg); the next run goes on once it is healthy."
        }
    }
}

extension Errno {
    /// The C name of the error (EIO, EMFILE, …), for messages an operator greps for.
    public var symbolicName: String {
        switch rawValue {
        case ENOENT: "ENOENT"
        case EIO: "EIO"
        case ENXIO: "ENXIO"
        case EBADF: "EBADF"
        case EAGAIN: "EAGAIN"
        case ENOMEM: "ENOMEM"
        case EACCES: "EACCES"
        case EPERM: "EPERM"
        case EBUSY: "EBUSY"
        case EEXIST: "EEXIST"
        case EXDEV: "EXDEV"
        case ENODEV: "ENODEV"
        case ENOTDIR: "ENOTDIR"
        case EISDIR: "EISDIR"
        case EINVAL: "EINVAL"
        case ENFILE: "ENFILE"
        case EMFILE: "EMFILE"
        case EFBIG: "EFBIG"
        case ENOSPC: "ENOSPC"
        case EROFS: "EROFS"
        case ELOOP: "ELOOP"
        case ENAMETOOLONG: "ENAMETOOLONG"
        case EDQUOT: "EDQUOT"
        case ESTALE: "ESTALE"
        case ENOTCONN: "ENOTCONN"
        case ETIMEDOUT: "ETIMEDOUT"
        case EOVERFLOW: "EOVERFLOW"
        case ENOBUFS: "ENOBUFS"
        case EUCLEAN: "EUCLEAN"
        case EREMOTEIO: "EREMOTEIO"
        default: "errno \(rawValue)"
        }
    }
}
