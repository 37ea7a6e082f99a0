import Glibc

/// An error number returned by a system call, with full-word names for the ones spool handles.
///
/// Shaped like swift-system's `Errno`, which spool cannot import (no package dependencies); the one table
/// that says whose fault each error is lives beside it, in `ErrnoClass.swift`.
package struct Errno: Error, Equatable, Hashable, Sendable, CustomStringConvertible {
    /// The raw C `errno` value.
    package let rawValue: Int32

    /// Wraps a raw C `errno` value.
    package init(rawValue: Int32) { self.rawValue = rawValue }

    /// The calling thread's current `errno`.
    package static var current: Errno { Errno(rawValue: errno) }

    /// ENOENT.
    package static let noSuchFileOrDirectory = Errno(rawValue: ENOENT)
    /// EEXIST.
    package static let fileExists = Errno(rawValue: EEXIST)
    /// EINTR.
    package static let interrupted = Errno(rawValue: EINTR)
    /// ENOTDIR.
    package static let notDirectory = Errno(rawValue: ENOTDIR)
    /// EISDIR.
    package static let isDirectory = Errno(rawValue: EISDIR)
    /// ELOOP: what `O_NOFOLLOW` returns for a symbolic link.
    package static let tooManySymbolicLinkLevels = Errno(rawValue: ELOOP)
    /// ENOSPC.
    package static let noSpace = Errno(rawValue: ENOSPC)
    /// EDQUOT.
    package static let diskQuotaExceeded = Errno(rawValue: EDQUOT)
    /// EACCES.
    package static let permissionDenied = Errno(rawValue: EACCES)
    /// EPERM.
    package static let notPermitted = Errno(rawValue: EPERM)
    /// EXDEV.
    package static let crossDevice = Errno(rawValue: EXDEV)
    /// EROFS.
    package static let readOnlyFileSystem = Errno(rawValue: EROFS)
    /// EAGAIN.
    package static let wouldBlock = Errno(rawValue: EAGAIN)
    /// ENXIO: what opening a FIFO without a writer for writing returns.
    package static let noSuchDevice = Errno(rawValue: ENXIO)
    /// ESRCH.
    package static let noSuchProcess = Errno(rawValue: ESRCH)
    /// EMFILE.
    package static let tooManyOpenFiles = Errno(rawValue: EMFILE)
    /// EINVAL: what a rename answers for a flag the file system does not support.
    package static let invalidArgument = Errno(rawValue: EINVAL)
    /// ENOSYS.
    package static let notImplemented = Errno(rawValue: ENOSYS)
    /// EIO: an input/output error, or a file that ended before its length.
    package static let ioError = Errno(rawValue: EIO)

    /// Whether retrying later may succeed: the disk or a quota is full, the system is short of resources, or
    /// a network file system is out of reach.
    package var isTemporary: Bool { faultClass.passes }

    /// The C library's message for this error.
    package var description: String { String(cString: strerror(rawValue)) }
}

/// Runs a system call until it does not fail with EINTR; throws its `errno` when it returns -1.
@discardableResult
@inline(__always)
package func retryingInterrupts<T: BinaryInteger>(_ call: () -> T) throws(Errno) -> T {
    while true {
        let result = call()
        if result != -1 { return result }
        let error = Errno.current
        if error != .interrupted { throw error }
    }
}
