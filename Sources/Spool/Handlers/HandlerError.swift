import Glibc
import SpoolDocument
import SpoolNames
import SpoolSystem
import SpoolTransport

/// Why a handler cannot be run. Such a job is never run and never filed: it waits (`e=handler`) until the
/// operator fixes the handler directory, as with an auth profile.
package enum HandlerError: Error, Equatable, CustomStringConvertible {
    case noDirectory(handler: String)
    case unreadable(path: String, Errno)
    case notADirectory(path: String)
    case directoryTooOpen(path: String, mode: mode_t)
    case missing(path: String)
    case symbolicLink(path: String)
    case notRegular(path: String)
    case notExecutable(path: String, mode: mode_t)
    case tooOpen(path: String, mode: mode_t)
    case foreignOwner(path: String, owner: uid_t, isDirectory: Bool)
    case cannotStart(path: String, Errno)

    /// The reason a waiting job shows and `spool-ctl check` prints: the path at fault and how to fix it.
    package var description: String {
        switch self {
        case let .noDirectory(handler):
            "the job names handler \"\(handler)\" but no handler directory is set (--handler-dir, SPOOL_HANDLER_DIR or "
                + "handler-dir in spool.conf)"
        case let .unreadable(path, error): "cannot look at \(path) (the handler directory or a handler in it): \(error)"
        case let .notADirectory(path): "handler directory \(path) is not a directory"
        case let .directoryTooOpen(path, mode):
            "handler directory \(path) is writable by group or others (mode \(String(mode, radix: 8))); chmod go-w it"
        case let .missing(path): "handler \(path) does not exist; install it, or discard the job"
        case let .symbolicLink(path):
            "handler \(path) is a symbolic link; spool runs only regular files, put the program itself there"
        case let .notRegular(path): "handler \(path) is not a regular file"
        case let .notExecutable(path, mode):
            "handler \(path) is not executable (mode \(String(mode, radix: 8))); chmod u+x it"
        case let .tooOpen(path, mode):
            "handler \(path) is writable by group or others (mode \(String(mode, radix: 8))); chmod go-w it"
        case let .foreignOwner(path, owner, isDirectory):
            "\(isDirectory ? "handler directory" : "handler") \(path) belongs to uid \(owner), neither root nor the "
                + "user spool-send runs as; chown it"
        case let .cannotStart(path, error): "cannot start handler \(path): \(error)"
        }
    }
}
