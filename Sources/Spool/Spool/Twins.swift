import SpoolDocument
import SpoolNames
import SpoolSystem
import SpoolTransport

extension Spool {
    /// What `resolveTwin` found and did.
    package enum TwinResolution: Sendable {
        /// The name is the file's only one in the spool (or gone).
        case noTwin
        /// The other name was removed: this one is the operation.
        case keptThis
        /// This name was removed: the other one is the operation.
        case removedThis
        /// Two names, too young to tell from a move in progress: left alone.
        case tooYoung
    }

    /// The other name of a file that has two inside the spool, and whether this name is the one to drop.
    package struct Twin: Sendable {
        /// Where the other name is.
        package let folder: Folder
        /// The other name.
        package let name: FileName
        /// Whether resolution removes the name asked about (else the other one).
        package let dropsThisName: Bool
        /// Younger than `SharedStorage.twinSettleSeconds`: maybe a move in progress, so left alone for now.
        package let inMotion: Bool
    }

    /// The twin of `name` (whose status is `status`), or nil when the file's other names are not in the
    /// spool. The name kept is the one the move was heading to: a filed operation over a waiting one (a
    /// filing is a decision made), a waiting one over a claim (its owner is gone), a stated name over a plain
    /// one in `new/`, anything over `tmp/`; ties go to the greater name, so every reader decides alike.
    package func twin(
        of folder: Folder, _ name: FileName, _ status: FileStatus, nowSeconds: Int64 = Timestamp.nowSeconds()
    ) throws(Errno) -> Twin? {
        guard let (otherFolder, otherName) = try findTwin(folder, name, status) else { return nil }
        let mine = (Spool.rank(folder, name), Folder.allCases.firstIndex(of: folder)!)
        let theirs = (Spool.rank(otherFolder, otherName), Folder.allCases.firstIndex(of: otherFolder)!)
        let dropsThis = mine < theirs || (mine == theirs && name < otherName)
        return Twin(
            folder: otherFolder, name: otherName, dropsThisName: dropsThis,
            inMotion: SharedStorage.isInMotion(changedSeconds: status.changedSeconds, nowSeconds: nowSeconds))
    }

    /// How far along the moves a name in `folder` is, for `twin`: of two names, the higher rank is kept.
    package static func rank(_ folder: Folder, _ name: FileName) -> Int {
        switch folder {
        case .tmp: 0
        case .cur: 1
        case .new: QueueName(name)?.state == nil ? 2 : 3
        case .failed, .conflict: 4
        }
    }

    /// The other name of a twice-linked file among the spool's entries with the same id (any name in `tmp/`).
    package func findTwin(_ folder: Folder, _ name: FileName, _ status: FileStatus) throws(Errno) -> (Folder, FileName)?
    {
        guard let id = QueueName(name)?.id ?? name.string?.split(separator: ":").first.map(String.init) else {
            return nil
        }
        let prefix = Array(id.utf8)
        for other in Folder.allCases {
            var candidates: [FileName] = []
            let dir = directory(other)
            do {
                try forEachRawEntry(in: other) { raw, _ in
                    if other == .tmp || raw.starts(with: prefix) { candidates.append(FileName(bytes: Array(raw))) }
                }
            } catch {
                throw error
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
