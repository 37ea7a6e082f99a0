import Glibc

extension Spool {
    /// Moves `name` in `folder` to `newName` in `destination` without ever replacing an entry: the one way a
    /// queue file changes state.
    ///
    /// `renameat2(RENAME_NOREPLACE)` where the file system has it. Where it answers EINVAL (FUSE, several
    /// network file systems), the classic `link` + `unlink` of qmail and nullmailer, chosen once for this
    /// spool: `link` never replaces a name either. A crash between the two leaves both names;
    /// `resolveTwin` keeps exactly one. Throws `noSuchFileOrDirectory` when another worker moved it first.
    public func move(_ name: FileName, from folder: Folder, to destination: Folder, as newName: FileName) throws(Errno) {
        let source = directory(folder), target = directory(destination)
        if !linkMoves.load(ordering: .relaxed) {
            do {
                try source.rename(name, to: target, as: newName)
                return
            } catch .invalidArgument, .notImplemented {
                linkMoves.store(true, ordering: .relaxed)
            }
        }
        try source.link(name, to: target, as: newName)
        CrashPoint.reach("move.linked")
        do {
            try source.unlink(name)
        } catch {
            // Gone: another mover unlinked the source first, so its move won and this one must not exist.
            // Any other failure: undo, so the file keeps one name.
            try? target.unlink(newName)
            throw error
        }
    }

    /// Whether this spool's file system lacks `RENAME_NOREPLACE`, so moves are `link` + `unlink`.
    public var movesByLink: Bool { linkMoves.load(ordering: .relaxed) }

    /// What `resolveTwin` did.
    public enum TwinResolution: Equatable, Sendable {
        /// The file's other name is not in the spool: it is hard linked from outside, or a move has just
        /// finished (the caller looks at the count again).
        case notTwin
        /// The other name was removed; this one is the operation now.
        case kept
        /// This name was removed; the other one is the operation.
        case removed
        /// The second name is younger than `twinSettleSeconds`: a move in progress, left alone.
        case inMotion
    }

    /// How old a pair of names must be before it counts as a move cut short by a crash rather than one in
    /// progress: a `link` + `unlink` takes microseconds. Tests shorten it with `SPOOL_TEST_TWIN_SETTLE`.
    public static let twinSettleSeconds: Int64 = Program.environment("SPOOL_TEST_TWIN_SETTLE").flatMap { Int64($0) } ?? 60

    /// Keeps one name of a file that has two inside the spool, the remnant of a `link` + `unlink` move cut
    /// short by a crash. The name kept is the one the move was heading to: a filed operation over a waiting
    /// one (a filing is a decision made), a waiting one over a claim (its owner is gone), a stated name over
    /// a plain one in `new/`, anything over `tmp/`.
    public func resolveTwin(_ folder: Folder, _ name: FileName, _ status: FileStatus, now: Int64 = Timestamp.now()) -> TwinResolution {
        guard let (otherFolder, otherName) = findTwin(folder, name, status) else { return .notTwin }
        if now - status.changedSeconds < Spool.twinSettleSeconds { return .inMotion }
        let keepOther = Spool.rank(otherFolder, otherName) > Spool.rank(folder, name)
        let (dropFolder, dropName) = keepOther ? (folder, name) : (otherFolder, otherName)
        do throws(Errno) {
            try directory(dropFolder).unlink(dropName)
        } catch .noSuchFileOrDirectory {
            // Another worker resolved it first, the same way.
        } catch {
            return .inMotion
        }
        return keepOther ? .removed : .kept
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
    func findTwin(_ folder: Folder, _ name: FileName, _ status: FileStatus) -> (Folder, FileName)? {
        guard let id = QueueName(name)?.id ?? name.string?.split(separator: ":").first.map(String.init) else { return nil }
        let prefix = Array(id.utf8)
        for other in Folder.allCases {
            var found: FileName?
            let dir = directory(other)
            try? dir.forEachRawEntry { raw, _ in
                guard found == nil, other == .tmp || raw.starts(with: prefix) else { return }
                let candidate = FileName(bytes: Array(raw))
                if other == folder, candidate == name { return }
                if let twin = try? dir.status(of: candidate), twin.inode == status.inode, twin.device == status.device {
                    found = candidate
                }
            }
            if let found { return (other, found) }
        }
        return nil
    }
}
