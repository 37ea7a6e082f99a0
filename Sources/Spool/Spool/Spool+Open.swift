import Glibc
import SpoolNames
import SpoolSystem

/// What opening a spool checks and makes: its folders (checked, made when missing), the directory that holds
/// a new spool (synced), and the error for a folder that is not one.
extension Spool {
    /// The status of folder `name` of `root`, made when missing if `create` (setting `created`); a symbolic
    /// link or anything but a directory is refused. Nothing is opened: `directory(_:)` opens a folder when
    /// first needed.
    package static func checkFolder(_ root: FileDescriptor, _ name: String, path: String, create: Bool, spool: String,
                                    created: inout Bool) throws(SpoolError) -> FileStatus {
        let folder = FileName(name)
        do throws(Errno) {
            let status = try root.status(of: folder)
            if status.isSymbolicLink { throw Errno.tooManySymbolicLinkLevels }
            if !status.isDirectory { throw Errno.notDirectory }
            return status
        } catch .noSuchFileOrDirectory {
            guard create else { throw .noSuchSpool(path: spool, missing: name) }
            do {
                try root.makeDirectory(folder, mode: directoryMode)
                created = true
            } catch let error where error != .fileExists {
                throw .cannotCreate(path: path, error)
            } catch {}
            do { return try root.status(of: folder) } catch { throw openError(path: path, error) }
        } catch {
            throw openError(path: path, error)
        }
    }

    /// Syncs the directory that holds `path`, after creating `path` in it.
    package static func syncParent(of path: String) throws(Errno) {
        let trimmed = path.hasSuffix("/") ? String(path.dropLast()) : path
        let parent = trimmed.lastIndex(of: "/").map { trimmed[..<$0].isEmpty ? "/" : String(trimmed[..<$0]) } ?? "."
        let fd: FileDescriptor
        do {
            fd = try FileDescriptor.currentDirectory.open(FileName(parent), O_RDONLY | O_DIRECTORY)
        } catch .permissionDenied {
            // A parent this user may traverse but not read (mode 0711): nothing more can be done from here.
            return
        }
        defer { fd.close() }
        try fd.sync()
    }

    /// The error for a folder that could not be opened: a symbolic link or a non-directory said as such.
    package static func openError(path: String, _ error: Errno) -> SpoolError {
        switch error {
        case .tooManySymbolicLinkLevels: .symbolicLink(path: path)
        case .notDirectory: .notADirectory(path: path)
        default: .cannotOpen(path: path, error)
        }
    }
}
