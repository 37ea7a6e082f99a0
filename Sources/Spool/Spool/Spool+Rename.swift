import Glibc

extension Spool {
    /// Left in the spool root once `renameat2(RENAME_NOREPLACE)` answered EINVAL, so that every process on
    /// this spool knows at once that moves are `link` + `unlink` and that two names of one file may be a
    /// move in progress.
    static let linkMovesMarker = FileName(".link-moves")

    /// Moves `name` in `folder` to `newName` in `destination` without ever replacing an entry: the one way a
    /// queue file changes state.
    ///
    /// `renameat2(RENAME_NOREPLACE)` where the file system has it. Where it answers EINVAL (FUSE, several
    /// network file systems), the classic `link` + `unlink` of qmail and nullmailer, chosen once per spool:
    /// `link` never replaces a name either. A crash between the two leaves both names; `resolveTwin` keeps
    /// exactly one. Throws `noSuchFileOrDirectory` when another worker moved it first.
    public func move(_ name: FileName, from folder: Folder, to destination: Folder, as newName: FileName) throws(Errno) {
        let source = directory(folder), target = directory(destination)
        if !linkMoves.load(ordering: .relaxed) {
            do {
                try source.rename(name, to: target, as: newName)
                return
            } catch .invalidArgument, .notImplemented {
                linkMoves.store(true, ordering: .relaxed)
                if let fd = try? root.open(Spool.linkMovesMarker, O_WRONLY | O_CREAT | O_NOFOLLOW, mode: Spool.fileMode) { fd.close() }
            }
        }
        try source.link(name, to: target, as: newName)
        CrashPoint.reach("move.linked")
        do {
            try source.unlink(name)
        } catch .noSuchFileOrDirectory {
            // Someone else removed the source. If ours is now the file's only name, that was twin resolution
            // finishing this very move; otherwise another mover's link won, and this one must not exist.
            if let status = try? target.status(of: newName), status.linkCount == 1 { return }
            try? target.unlink(newName)
            throw .noSuchFileOrDirectory
        } catch {
            try? target.unlink(newName)
            throw error
        }
    }

    /// Whether moves on this spool are `link` + `unlink` (its file system lacks `RENAME_NOREPLACE`).
    public var movesByLink: Bool { linkMoves.load(ordering: .relaxed) }

    /// How old a pair of names must be before it counts as a move cut short by a crash rather than one in
    /// progress: a `link` + `unlink` takes microseconds. Tests shorten it with `SPOOL_TEST_TWIN_SETTLE`.
    public static let twinSettleSeconds: Int64 = Program.environment("SPOOL_TEST_TWIN_SETTLE").flatMap { Int64($0) } ?? 60

    /// The other name of a file that has two inside the spool, and whether this name is the one to drop.
    public struct Twin: Sendable {
        /// Where the other name is.
        public let folder: Folder
        /// The other name.
        public let name: FileName
        /// Whether resolution removes the name asked about (else the other one).
        public let dropsThisName: Bool
        /// Younger than `twinSettleSeconds`: maybe a move in progress, so left alone for now.
        public let inMotion: Bool
    }

    /// The twin of `name` (whose status is `status`), or nil when the file's other names are not in the
    /// spool. The name kept is the one the move was heading to: a filed operation over a waiting one (a
    /// filing is a decision made), a waiting one over a claim (its owner is gone), a stated name over a plain
    /// one in `new/`, anything over `tmp/`; ties go to the greater name, so every reader decides alike.
    public func twin(of folder: Folder, _ name: FileName, _ status: FileStatus, now: Int64 = Timestamp.now()) throws(Errno) -> Twin? {
        guard let (otherFolder, otherName) = try findTwin(folder, name, status) else { return nil }
        let mine = (Spool.rank(folder, name), Folder.allCases.firstIndex(of: folder)!)
        let theirs = (Spool.rank(otherFolder, otherName), Folder.allCases.firstIndex(of: otherFolder)!)
        let dropsThis = mine < theirs || (mine == theirs && name < otherName)
        return Twin(folder: otherFolder, name: otherName, dropsThisName: dropsThis, inMotion: now - status.changedSeconds < Spool.twinSettleSeconds)
    }

    /// Keeps one name of a file left with two by a crash between `link` and `unlink`. Call it holding the
    /// spool lock: every other move that can leave a twin (claims, returns, recovery) is made under it, and
    /// filings and enqueues, which are not, finish correctly when their source was removed for them.
    /// Returns whether `name` itself was removed; false when there is no twin or it is too young.
    @discardableResult
    public func resolveTwin(_ folder: Folder, _ name: FileName, now: Int64 = Timestamp.now(), log: Log = .silent) throws(Errno) -> Bool {
        let status: FileStatus
        do { status = try directory(folder).status(of: name) } catch .noSuchFileOrDirectory { return false }
        guard status.linkCount == 2, let twin = try twin(of: folder, name, status, now: now), !twin.inMotion else { return false }
        let (dropFolder, dropName) = twin.dropsThisName ? (folder, name) : (twin.folder, twin.name)
        do {
            try directory(dropFolder).unlink(dropName)
            log.notice("removed \(displayPath(dropFolder, dropName)), the second name of a move cut short by a crash")
        } catch .noSuchFileOrDirectory {
            // Resolved by another worker, the same way.
        }
        return twin.dropsThisName
    }

    static func rank(_ folder: Folder, _ name: FileName) -> Int {
        switch folder {
        case .tmp: 0
        case .cur: 1
        case .new: QueueName(name)?.state == nil ? 2 : 3
        case .failed, .conflict: 4
        }
    }

    /// The other name of a twice-linked file among the spool's entries with the same id (any name in `tmp/`).
    func findTwin(_ folder: Folder, _ name: FileName, _ status: FileStatus) throws(Errno) -> (Folder, FileName)? {
        guard let id = QueueName(name)?.id ?? name.string?.split(separator: ":").first.map(String.init) else { return nil }
        let prefix = Array(id.utf8)
        for other in Folder.allCases {
            var candidates: [FileName] = []
            let dir = directory(other)
            do {
                try dir.forEachRawEntry { raw, _ in
                    if other == .tmp || raw.starts(with: prefix) { candidates.append(FileName(bytes: Array(raw))) }
                }
            } catch {
                throw error as? Errno ?? .invalidArgument
            }
            for candidate in candidates where !(other == folder && candidate == name) {
                let found: FileStatus
                do { found = try dir.status(of: candidate) } catch .noSuchFileOrDirectory { continue }
                if found.inode == status.inode, found.device == status.device { return (other, candidate) }
            }
        }
        return nil
    }
}
