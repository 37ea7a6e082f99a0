import Glibc

/// Where the fault lies when a system call on a queue file fails: the one table that decides whether an
/// error may file an operation in `failed/`.
///
/// Only the operation's own content may make it permanently bad. Everything else (the system short of
/// resources, a file system going away, permissions) leaves every operation where it is: nullmailer's
/// three-way split, with the spool's own trouble never blamed on the operation.
package enum ErrnoClass: Sendable, Equatable {
    /// The entry is gone: another worker moved it first. Nothing to do.
    case vanished
    /// The entry itself can never be read as an operation (a link, a special file, a name the file system
    /// cannot hold): file it in `failed/`.
    case content
    /// The system is short of something that comes back (descriptors, memory, space): leave the operation,
    /// stop its lane, exit 75 so that cron tries again.
    case resource
    /// This process may not read or move the entry: leave it, stop its lane, exit 74 for the operator.
    case permission
    /// The spool's storage is failing (I/O error, read-only, gone): leave every operation, stop the run,
    /// exit 74 for the operator.
    case storage
    /// A network or FUSE file system is out of reach for now (lost connection, stale handle): leave every
    /// operation, stop the run, exit 75; a watcher waits and tries again, since the mount comes back.
    case disconnected

    /// The table. Anything not listed is `storage`: an unknown error must never file an operation.
    package static let table: [(Int32, ErrnoClass)] = [
        (ENOENT, .vanished),
        (ELOOP, .content), (ENXIO, .content), (EISDIR, .content), (ENAMETOOLONG, .content),
        (EFBIG, .content), (EOVERFLOW, .content), (EILSEQ, .content),
        (EMFILE, .resource), (ENFILE, .resource), (ENOMEM, .resource), (ENOBUFS, .resource),
        (EAGAIN, .resource), (ENOSPC, .resource), (EDQUOT, .resource), (EBUSY, .resource),
        (ETIMEDOUT, .resource), (EINTR, .resource),
        (EACCES, .permission), (EPERM, .permission),
        (EIO, .storage), (EROFS, .storage), (ENODEV, .storage), (EBADF, .storage), (EUCLEAN, .storage),
        (EREMOTEIO, .storage), (EXDEV, .storage),
        (ENOTCONN, .disconnected), (ESTALE, .disconnected), (ENOLINK, .disconnected), (ESHUTDOWN, .disconnected),
        (ECONNABORTED, .disconnected), (EHOSTDOWN, .disconnected), (ECONNRESET, .disconnected),
        (EHOSTUNREACH, .disconnected), (ENETUNREACH, .disconnected),
        // GlusterFS's client answers EBADFD on a descriptor it could not reopen after its connection came
        // back (one that held a lock): the spool lock's descriptor is then opened anew (SpoolLock.swift).
        (EBADFD, .disconnected),
    ]

    /// The class of one error number.
    package init(_ error: Errno) {
        self = ErrnoClass.table.first { $0.0 == error.rawValue }?.1 ?? .storage
    }

    /// The sysexits code a run that met this fault ends with: 75 when trying again later is the remedy.
    package var exitCode: Int32 {
        switch self {
        case .resource, .disconnected: ExitCode.temporaryFailure
        case .vanished: ExitCode.success
        case .content, .permission, .storage: ExitCode.ioError
        }
    }

    /// Whether the fault concerns the whole spool, so that going on would only meet it again.
    package var stopsRun: Bool { self == .storage || self == .disconnected }

    /// Whether the fault passes by itself, so that trying again later is the remedy (sysexits 75).
    package var passes: Bool { self == .resource || self == .disconnected }
}

extension Errno {
    /// Where the fault lies (see `ErrnoClass`).
    package var faultClass: ErrnoClass { ErrnoClass(self) }
}
