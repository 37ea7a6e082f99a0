import Glibc

/// An error number returned by a system call, with full-word names for the ones spool handles.
///
/// Shaped like swift-system's `Errno`, which spool cannot import (no package dependencies); the one table
/// that says whose fault each error is lives beside it, in `ErrnoClass.swift`.
public struct Errno: Error, Equatable, Hashable, Sendable, CustomStringConvertible {
    /// The raw C `errno` value.
    public let rawValue: Int32

    /// Wraps a raw C `errno` value.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The calling thread's current `errno`.
    public static var current: Errno { Errno(rawValue: errno) }

    /// ENOENT.
    public static let noSuchFileOrDirectory = Errno(rawValue: ENOENT)
    /// EEXIST.
    public static let fileExists = Errno(rawValue: EEXIST)
    /// EINTR.
    public static let interrupted = Errno(rawValue: EINTR)
    /// ENOTDIR.
    public static let notDirectory = Errno(rawValue: ENOTDIR)
    /// EISDIR.
    public static let isDirectory = Errno(rawValue: EISDIR)
    /// ELOOP: what `O_NOFOLLOW` returns for a symbolic link.
    public static let tooManySymbolicLinkLevels = Errno(rawValue: ELOOP)
    /// ENOSPC.
    public static let noSpace = Errno(rawValue: ENOSPC)
    /// EDQUOT.
    public static let diskQuotaExceeded = Errno(rawValue: EDQUOT)
    /// EACCES.
    public static let permissionDenied = Errno(rawValue: EACCES)
    /// EPERM.
    public static let notPermitted = Errno(rawValue: EPERM)
    /// EXDEV.
    public static let crossDevice = Errno(rawValue: EXDEV)
    /// EROFS.
    public static let readOnlyFileSystem = Errno(rawValue: EROFS)
    /// EAGAIN.
    public static let wouldBlock = Errno(rawValue: EAGAIN)
    /// ENXIO: what opening a FIFO without a writer for writing returns.
    public static let noSuchDevice = Errno(rawValue: ENXIO)
    /// ESRCH.
    public static let noSuchProcess = Errno(rawValue: ESRCH)
    /// EMFILE.
    public static let tooManyOpenFiles = Errno(rawValue: EMFILE)
    /// EINVAL: what a rename answers for a flag the file system does not support.
    public static let invalidArgument = Errno(rawValue: EINVAL)
    /// ENOSYS.
    public static let notImplemented = Errno(rawValue: ENOSYS)
    /// EIO: an input/output error, or a file that ended before its length.
    public static let ioError = Errno(rawValue: EIO)

    /// Whether retrying later may succeed: the disk or a quota is full, the system is short of resources, or
    /// a network file system is out of reach.
    public var isTemporary: Bool { faultClass.passes }

    /// The C library's message for this error.
    public var description: String { String(cString: strerror(rawValue)) }
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
