import SpoolConfiguration
import SpoolDocument
import SpoolHandlers
import SpoolNames
import SpoolQueue
import SpoolReporting
import SpoolSystem
import SpoolTransport

/// Why a `spool-ctl` action on one operation could not be done. Each description names the operation.
package enum ControlError: Error, CustomStringConvertible {
    case notFound(String)
    /// An id prefix that more than one id begins with, said with the ids.
    case ambiguous(String)
    /// Listed in `from`, it moved before spool-ctl could move it: `to` is where it is now, nil when it left the
    /// spool (delivered, or discarded by someone else).
    case movedMeanwhile(id: String, from: Spool.Folder, to: Spool.Folder?)
    case notFiled(id: String, folder: Spool.Folder)
    case notWaiting(id: String, folder: Spool.Folder)
    case inFlight(id: String, pid: Int32, host: String)
    case unreadable(id: String, why: String)
    case notConflict(id: String, folder: Spool.Folder)
    case noServerETag(id: String)
    case weakServerETag(id: String, etag: String)
    case payloadNotEditable(id: String)
    case invalidEdit(id: String, why: String)
    case io(path: String, Errno)

    /// The message `spool-ctl` prints after `error:`, naming the operation and, where there is one, what to do.
    package var description: String {
        switch self {
        case let .notFound(id): "no operation \(id) in the spool (give an id or a path such as spool/conflict/ID)"
        case let .ambiguous(why): why
        case let .movedMeanwhile(id, from, nil):
            "\(id) left \(from.rawValue)/ while spool-ctl worked on it (delivered, or discarded by someone else)"
        case let .movedMeanwhile(id, from, to?) where to == from:
            "\(id) was renamed in \(from.rawValue)/ while spool-ctl worked on it (a run admitted or deferred it); "
                + "spool-ctl left it as it is: run the command again"
        case let .movedMeanwhile(id, from, to?):
            "\(id) moved from \(from.rawValue)/ to \(to.rawValue)/ while spool-ctl worked on it; spool-ctl left it "
                + "there: run the command again"
        case let .notFiled(id, folder):
            "\(id) is in \(folder.rawValue)/, not in failed/ or conflict/; nothing to retry (use --now to send a "
                + "deferred one now)"
        case let .notWaiting(id, folder):
            "\(id) is in \(folder.rawValue)/, not waiting in new/; only a waiting operation is held or released"
        case let .inFlight(id, pid, host):
            "\(id) is being sent by spool-send pid \(pid) on \(host); try again when it is done"
        case let .unreadable(id, why): "\(id) cannot be changed: \(why)"
        case let .notConflict(id, folder):
            "\(id) is in \(folder.rawValue)/, not in conflict/; resolve decides conflicts (use retry or discard)"
        case let .noServerETag(id):
            "\(id): the server's version has no known ETag (its answer carried none and none was fetched), so "
                + "keeping mine would overwrite blind; find the current ETag (curl -I URL) and run "
                + "spool-ctl retry --if-match ETAG \(id)"
        case let .weakServerETag(id, etag):
            "\(id): the server's version has only a weak ETag (\(etag)), which If-Match never matches; find its "
                + "strong ETag (curl -I URL) and run spool-ctl retry --if-match ETAG \(id)"
        case let .payloadNotEditable(id):
            "\(id) carries a payload, which is not edited here; use --keep-mine or --keep-theirs"
        case let .invalidEdit(id, why): "\(id): \(why); nothing was changed"
        case let .io(path, error): "\(path): \(error)"
        }
    }

    /// The sysexits code: 66 not found, 65 bad document, 75 in flight, moved meanwhile or a fault that passes,
    /// 74 I/O.
    package var exitCode: Int32 {
        switch self {
        case .notFound, .movedMeanwhile(_, _, nil): ExitCode.noInput
        case .ambiguous: ExitCode.usage
        case .movedMeanwhile: ExitCode.temporaryFailure
        case .notFiled, .notWaiting, .unreadable, .notConflict, .noServerETag, .weakServerETag, .payloadNotEditable,
             .invalidEdit:
            ExitCode.dataError
        case .inFlight: ExitCode.temporaryFailure
        case let .io(_, error): error.faultClass.passes ? ExitCode.temporaryFailure : ExitCode.ioError
        }
    }

    /// Throws unless a move on `item` was made: a fault is `io`; gone is decided by `gone(_:now:)` from where the
    /// operation is now, which `locate` tells (the I/O is the caller's).
    static func check<Moved>(
        _ result: MoveResult<Moved>, _ item: QueueItem, now: () throws(ControlError) -> QueueItem?
    ) throws(ControlError) {
        switch result {
        case .moved: return
        case .gone: throw gone(item, now: try now())
        case let .fault(fault): throw .io(path: fault.path, fault.error)
        }
    }

    /// Why a move found `item` gone from where it was listed, given where it is `now`: a worker that claimed it
    /// meanwhile is sending it, as `discard` says of one it finds claimed; anywhere else it moved; nowhere, it left.
    static func gone(_ item: QueueItem, now: QueueItem?) -> ControlError {
        guard let now else { return .movedMeanwhile(id: item.id, from: item.folder, to: nil) }
        if now.folder == .cur, let claim = now.claim {
            return .inFlight(id: item.id, pid: claim.owner.pid, host: claim.owner.host)
        }
        return .movedMeanwhile(id: item.id, from: item.folder, to: now.folder)
    }
}
