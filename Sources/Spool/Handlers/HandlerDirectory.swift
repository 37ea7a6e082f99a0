import Glibc
import SpoolDocument
import SpoolNames
import SpoolSystem
import SpoolTransport

/// The admin's handler directory (`--handler-dir`): the only programs a job can name. It lives outside the
/// spool, since whoever writes to `new/` must never choose what runs, and is checked at each use the way
/// auth profiles are.
package struct HandlerDirectory: Sendable, Equatable {
    /// The directory's path.
    package let path: String

    /// The handler directory at `path`, made absolute: it is checked here and run from `/`.
    package init(path: String) { self.path = FileName.absolutePath(path) }

    /// The directory named by `--handler-dir`, else `SPOOL_HANDLER_DIR`, else spool.conf's `handler-dir`.
    /// There is no default: no program runs unless the admin names a place for them.
    package static func defaultPath(option: String?, configured: String?) -> String? {
        option ?? Environment.value("SPOOL_HANDLER_DIR") ?? configured
    }

    /// The path of handler `name`, once it is known to be a regular executable file that neither it nor its
    /// directory lets group or others change. `name` is a valid handler name (checked with the document).
    package func program(_ name: String) throws(HandlerError) -> String {
        let program = "\(path)/\(name)"
        let directory: FileDescriptor
        do { directory = try FileDescriptor.currentDirectory.open(FileName(path), O_RDONLY | O_DIRECTORY) } catch {
            throw error == .notDirectory ? .notADirectory(path: path) : .unreadable(path: path, error)
        }
        defer { directory.close() }
        let folder: FileStatus
        do { folder = try directory.status() } catch { throw .unreadable(path: path, error) }
        guard folder.mode & 0o022 == 0 else { throw .directoryTooOpen(path: path, mode: folder.permissions) }
        guard HandlerDirectory.isTrusted(folder.owner) else {
            throw .foreignOwner(path: path, owner: folder.owner, isDirectory: true)
        }
        let file: FileStatus
        do { file = try directory.status(of: FileName(name)) } catch {
            throw error == .noSuchFileOrDirectory ? .missing(path: program) : .unreadable(path: program, error)
        }
        if file.isSymbolicLink { throw .symbolicLink(path: program) }
        guard file.isRegularFile else { throw .notRegular(path: program) }
        guard file.mode & 0o022 == 0 else { throw .tooOpen(path: program, mode: file.permissions) }
        guard file.mode & 0o111 != 0 else { throw .notExecutable(path: program, mode: file.permissions) }
        guard HandlerDirectory.isTrusted(file.owner) else {
            throw .foreignOwner(path: program, owner: file.owner, isDirectory: false)
        }
        return program
    }

    /// Root, or the user spool-send runs as: anyone else could change the program (sudo and sshd's rule).
    package static func isTrusted(_ owner: uid_t) -> Bool { owner == 0 || owner == geteuid() }
}
