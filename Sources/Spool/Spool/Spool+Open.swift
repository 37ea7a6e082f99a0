import Glibc
import SpoolNames
import SpoolSystem

/// What opening a spool checks and makes: which path it is, its folders (checked, made when missing), the
/// directory that holds a new spool (synced), the error for a folder that is not one, and whether an open
/// spool still reaches its path.
extension Spool {
    /// The spool named by `--spool`, else `SPOOL_DIR`, else `./spool`.
    package static func defaultPath(option: String?) -> String { defaultPath(option: option, fallback: "spool") }

    /// The spool named by `--spool`, else `SPOOL_DIR`, else `fallback`.
    package static func defaultPath(option: String?, fallback: String) -> String {
        if let option { return option }
        if let path = Environment.value("SPOOL_DIR") { return path }
        return fallback
    }

    /// The host's spool, as the Debian package makes it: a set-group-ID spool-enqueue's default.
    package static let hostPath = "/var/spool/spool"

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

extension Spool {
    /// Whether the descriptors this spool holds still reach its path: false once the file system was
    /// remounted under a running worker, or a folder or `.lock` was made anew (the old descriptors answer
    /// ENOTCONN or ESTALE forever), so that a watcher exits and its supervisor opens the new ones; true
    /// while the path is out of reach as well.
    package var reachesItsPath: Bool {
        func same(_ held: FileDescriptor, _ name: String) -> Bool {
            held.isSameFile(as: FileName(name), in: .currentDirectory)
        }
        guard same(root, path) else { return false }
        for folder in Folder.allCases {
            let name = "\(path)/\(folder.rawValue)"
            if let held = openedDirectory(folder) {
                if !same(held, name) { return false }
            } else if case let .success(now) = Result(catching: { () throws(Errno) in
                try FileDescriptor.currentDirectory.status(of: FileName(name))
            }), !isFolderFound(now, folder) {
                return false
            }
        }
        return lock.reachesItsPath
    }
}
