import CSpool
import Glibc
import SpoolDocument
import SpoolNames
import SpoolSystem
import SpoolTransport
import Synchronization

/// A spool directory and open descriptors on its five folders.
///
/// All work happens relative to these descriptors with `O_NOFOLLOW`, so nothing a producer places in the
/// spool can make spool read or move a file outside it.
package final class Spool: Sendable {
    /// The five folders, in the order a queue file moves through them.
    package enum Folder: String, CaseIterable, Sendable {
        case tmp, new, cur, failed, conflict
    }

    /// The spool's path as given.
    package let path: String
    /// The spool directory itself.
    package let root: FileDescriptor
    /// Descriptors on the five folders, -1 until `directory(_:)` first needs one: a run that delivers one write
    /// never opens `failed/` or `conflict/`. Atomics, read without a lock on every move of every delivery;
    /// `opening` is taken only to open one, and holds the folders found replaced, not tried again.
    private let tmpDescriptor = Atomic<Int32>(-1), newDescriptor = Atomic<Int32>(-1)
    private let curDescriptor = Atomic<Int32>(-1), failedDescriptor = Atomic<Int32>(-1)
    private let conflictDescriptor = Atomic<Int32>(-1)
    private let opening = Locked<Set<Folder>>([])
    /// Each folder as it was when the spool was opened: a folder opened later, and a listing by name, must
    /// find the same directory (`Spool+Listing`).
    package let folderStatuses: [FileStatus]
    /// Which folders this process may read: the others (a shared spool's `tmp/` and `new/` for a producer)
    /// are opened `O_PATH`.
    private let folderReadable: [Bool]
    /// Whether this process may only drop here: a producer of a shared spool (spool(5)), for whom `tmp/` and
    /// `new/` are write-and-search only and the other folders closed. Their descriptors are `O_PATH` ones,
    /// good for creating and renaming an entry but not for listing or syncing the folder.
    package let dropOnly: Bool
    /// Whether opening it made the spool itself (a producer's first drop into a new path, or `init`): said once,
    /// so that a mistyped `--spool` does not strand writes where no worker looks.
    package let wasCreated: Bool
    /// Who uses the spool: its owner, and the producers of a spool for many users (spool(5)).
    package let users: SpoolUsers
    /// What the spool needs from storage that several hosts may share (spool(5), "Shared spools").
    package let storage: SharedStorage
    /// The spool lock, opened on first use: producers never need it.
    package let lockStorage = Locked<SpoolLock?>(nil)

    /// The lock that workers and `spool-ctl` hold while they list, claim and return operations.
    package var lock: SpoolLock {
        lockStorage.withLock { stored in
            if let stored { return stored }
            let made = SpoolLock(self)
            stored = made
            return made
        }
    }

    /// Runs `body` holding the spool lock, with the transaction whose methods are the locked transitions.
    /// A lock that cannot be taken is thrown as `body`'s own error.
    package func withLock<R, E: LockFailureRepresentable>(_ body: (Transaction) throws(E) -> R) throws(E) -> R {
        try lock.withLock(body)
    }

    /// Makes one move holding the spool lock; a lock that cannot be taken is a fault, and nothing moves.
    package func withLock<R>(_ move: (Transaction) -> MoveResult<R>) -> MoveResult<R> {
        do throws(SystemCallError) {
            return try lock.withLock { transaction throws(SystemCallError) in move(transaction) }
        } catch {
            return .fault(error)
        }
    }

    /// How this process used the spool lock since the last call (which starts the count anew): for a run's
    /// `-v` line.
    package func takeLockUse() -> LockUse { lock.takeUse() }

    /// Where the spool lock lives, for messages.
    package var lockPath: String { lock.path }

    /// Default folder mode: private to the owner, as Postfix and maildir do.
    package static let directoryMode: mode_t = 0o700
    /// Default queue file mode.
    package static let fileMode: mode_t = 0o600
    /// The mode of a file a producer drops into a shared spool: the sender reads it through the drop group.
    package static let droppedFileMode: mode_t = 0o640

    /// Opens the spool at `path`. With `create`, as a producer or `spool-ctl init` opens it, a missing spool
    /// (one level) and any missing folder are made with mode 0700; without it, as readers and the sender open
    /// it, a path that is not yet a spool is refused (`noSuchSpool`), so that a mistyped path is an error
    /// rather than a new, empty spool that a cron job watches forever (Postfix's rule too).
    /// Refuses a path that is a symbolic link or not a directory, and folders on another file system.
    package init(path: String, create: Bool = true) throws(SpoolError) {
        self.path = path
        let cwd = FileDescriptor.currentDirectory
        let name = FileName(path)
        var created = false
        switch Result(catching: { () throws(Errno) in try cwd.status(of: name) }) {
        case let .success(status):
            if status.isSymbolicLink { throw .symbolicLink(path: path) }
            if !status.isDirectory { throw .notADirectory(path: path) }
        case .failure(.noSuchFileOrDirectory):
            guard create else { throw .noSuchSpool(path: path, missing: nil) }
            do {
                try cwd.makeDirectory(name, mode: Spool.directoryMode)
                created = true
            } catch where error != .fileExists {
                throw .cannotCreate(path: path, error)
            } catch {}
        case let .failure(error):
            throw .cannotOpen(path: path, error)
        }
        let root: FileDescriptor
        do { root = try cwd.openDirectory(name) } catch { throw Spool.openError(path: path, error) }
        var folderStatuses: [FileStatus] = []
        var folderReadable: [Bool] = []
        var owner = UserDatabase.effectiveUser
        do {
            let status = try root.status()
            let device = status.device
            owner = status.owner
            var madeFolder = false
            for folder in Folder.allCases {
                let folderPath = "\(path)/\(folder.rawValue)"
                let folderStatus = try Spool.checkFolder(
                    root, folder.rawValue, path: folderPath, create: create, spool: path, created: &madeFolder)
                guard folderStatus.device == device else {
                    throw SpoolError.otherFileSystem(path: folderPath, spool: path)
                }
                folderStatuses.append(folderStatus)
                folderReadable.append(root.allows(FileName(folder.rawValue), R_OK | X_OK))
            }
            // A new folder exists after a power cut only once the directory holding it is synced: without
            // this, the first enqueue could be acknowledged into a new/ that is then lost.
            if madeFolder { try root.sync() }
            if created { try Spool.syncParent(of: path) }
        } catch {
            root.close()
            if let error = error as? SpoolError { throw error }
            throw .io(path: path, error as! Errno)
        }
        // A shared spool's producer: some folders may be written and searched (tmp/, new/) or not at all.
        let dropOnly = folderReadable.contains(false)
        self.root = root
        self.folderStatuses = folderStatuses
        self.folderReadable = folderReadable
        self.dropOnly = dropOnly
        wasCreated = created
        users = SpoolUsers(
            owner: owner,
            takesProducerDrops: folderStatuses[Folder.allCases.firstIndex(of: .new)!].mode & 0o022 != 0)
        storage = SharedStorage(root: root)
    }

    /// Refuses a spool this process cannot change: a read-only mount, or folders it may not write.
    /// Checked up front so that a worker says so once, instead of failing on every file.
    package func requireWritable() throws(SpoolError) {
        // A producer of a shared spool needs only tmp/ and new/; the effective ids count (spool-enqueue may be
        // set-group-ID to the drop group).
        for folder in dropOnly ? [.tmp, .new] : Folder.allCases {
            let ok = FileName(folder.rawValue).withCString { faccessat(root.rawValue, $0, W_OK | X_OK, AT_EACCESS) }
            if ok != 0 { throw .notWritable(path: "\(path)/\(folder.rawValue)", Errno.current) }
        }
    }

    deinit {
        for folder in Folder.allCases { openedDirectory(folder)?.close() }
        root.close()
    }

    /// The descriptor of one folder, opened the first time it is needed (`O_PATH` where this process may not
    /// read it) and kept. Only the folder found when the spool was opened is taken: one made anew since gets
    /// the descriptor -1, whose every use fails (EBADF), as the old one's would have.
    package func directory(_ folder: Folder) -> FileDescriptor {
        if let opened = openedDirectory(folder) { return opened }
        return opening.withLock { lost in
            // Another thread may have opened it while this one waited.
            if let opened = openedDirectory(folder) { return opened }
            if lost.contains(folder) { return FileDescriptor(rawValue: -1) }
            let index = Folder.allCases.firstIndex(of: folder)!
            let name = FileName(folder.rawValue)
            guard let opened = try? (folderReadable[index] ? root.openDirectory(name) : root.locateDirectory(name))
            else { return FileDescriptor(rawValue: -1) } // tried again next time: it may be out of descriptors
            guard let status = try? opened.status(), isFolderFound(status, folder) else {
                opened.close()
                lost.insert(folder)
                return FileDescriptor(rawValue: -1)
            }
            descriptor(folder) { $0.store(opened.rawValue, ordering: .releasing) }
            return opened
        }
    }

    /// The status of one folder, through its descriptor when it is open, else by its name in the spool (no
    /// link followed) without opening it: the light front's look at an idle queue opens no folder for it. Nil
    /// when it cannot be had, or when the name now holds another folder than the one the spool was opened with.
    package func folderStatus(_ folder: Folder) -> FileStatus? {
        if let opened = openedDirectory(folder) { return try? opened.status() }
        guard let status = try? root.status(of: FileName(folder.rawValue)), isFolderFound(status, folder) else {
            return nil
        }
        return status
    }

    /// Whether `status` is of the very folder found as `folder` when the spool was opened.
    package func isFolderFound(_ status: FileStatus, _ folder: Folder) -> Bool {
        let found = folderStatuses[Folder.allCases.firstIndex(of: folder)!]
        return status.device == found.device && status.inode == found.inode
    }

    /// The descriptor of one folder if `directory(_:)` opened it already.
    package func openedDirectory(_ folder: Folder) -> FileDescriptor? {
        let raw = descriptor(folder) { $0.load(ordering: .acquiring) }
        return raw >= 0 ? FileDescriptor(rawValue: raw) : nil
    }

    /// Runs `body` on the atomic that holds `folder`'s descriptor.
    private func descriptor<R>(_ folder: Folder, _ body: (borrowing Atomic<Int32>) -> R) -> R {
        switch folder {
        case .tmp: body(tmpDescriptor)
        case .new: body(newDescriptor)
        case .cur: body(curDescriptor)
        case .failed: body(failedDescriptor)
        case .conflict: body(conflictDescriptor)
        }
    }

    /// The path of an entry, for messages.
    package func displayPath(_ folder: Folder, _ name: FileName) -> String {
        "\(path)/\(folder.rawValue)/\(name.escaped)"
    }
}

