import Glibc
import SpoolDocument
import SpoolNames
import SpoolSystem

/// How one queue move is made, whichever transition asks for it (`Transitions.swift`): a rename that never
/// replaces a name, `link` + `unlink` where the file system lacks `RENAME_NOREPLACE`, and a producer's entry
/// that took the name a move into `new/` needs set out of the way. Only the transitions call `move`.
extension Spool {
    /// Left in the spool root once `RENAME_NOREPLACE` was refused with EINVAL, so that every process on this
    /// spool knows at once that moves are `link` + `unlink` and that two names of one file may be a move in
    /// progress.
    package static let linkMovesMarker = FileName(".link-moves")

    /// Whether moves on this spool are `link` + `unlink` (its file system lacks `RENAME_NOREPLACE`).
    package var movesByLink: Bool { linkMoves.load(ordering: .relaxed) }

    /// Renames without ever replacing an entry: `RENAME_NOREPLACE` where the file system has it; where it
    /// answers EINVAL (FUSE, several network file systems), the classic `link` + `unlink` of qmail and
    /// nullmailer, chosen once per spool (`link` never replaces a name either). A crash between the two
    /// leaves both names; `resolveTwin` keeps one. Throws `noSuchFileOrDirectory` when another worker moved
    /// the entry first.
    func move(_ name: FileName, from folder: Folder, to destination: Folder, as newName: FileName)
        throws(Errno)
    {
        // A few times: a producer who takes the name again at once is racing, and loses soon enough.
        var setAsidesLeft = 3
        while true {
            do throws(Errno) {
                try moveOnce(name, from: folder, to: destination, as: newName)
                return
            } catch .fileExists {
                guard destination == .new, setAsidesLeft > 0, setAside(newName, for: name, in: folder) else {
                    throw .fileExists
                }
                setAsidesLeft -= 1
            }
        }
    }

    /// Renames the entry of `new/` named `name`, which stands in the way of moving `source` (in `folder`)
    /// there, to a hidden name no run reads, when it is a producer's (not root's, not the spool owner's) and
    /// not a second name of `source` itself: a producer who takes the name that another's write or a claim
    /// given back is to have (it is predictable) must hold neither that write nor the run back. The spool's
    /// owner may rename any entry of its sticky `new/`, a directory too, within the folder. Returns whether
    /// it did; says so in `setAsideNotes`.
    private func setAside(_ name: FileName, for source: FileName, in folder: Folder) -> Bool {
        let new = directory(.new)
        guard let status = try? new.status(of: name), isProducer(status.owner),
              (try? directory(folder).status(of: source))?.inode != status.inode
        else { return false }
        // Not `move`: where the file system lacks RENAME_NOREPLACE, `link` cannot move a directory. There, a
        // plain rename to a name made unique here, which nothing else holds.
        let aside = FileName(".in-the-way." + UniqueName.next().id)
        do throws(Errno) {
            try new.rename(name, to: new, as: aside)
        } catch .invalidArgument, .notImplemented {
            guard (try? new.replace(name, in: new, as: aside)) != nil else { return false }
        } catch {
            return false
        }
        setAsideNotes.withLock {
            $0.append("\(displayPath(.new, name)), made by \(UserDatabase.display(status.owner)), took the name a "
                + "move needed; set aside as \(displayPath(.new, aside)) for its maker to remove")
        }
        return true
    }

    /// One try of `move`.
    private func moveOnce(_ name: FileName, from folder: Folder, to destination: Folder, as newName: FileName)
        throws(Errno)
    {
        let source = directory(folder), target = directory(destination)
        if !linkMoves.load(ordering: .relaxed) {
            do {
                try source.rename(name, to: target, as: newName)
                return
            } catch .invalidArgument, .notImplemented {
                linkMoves.store(true, ordering: .relaxed)
                if let fd = try? root.open(Spool.linkMovesMarker, O_WRONLY | O_CREAT | O_NOFOLLOW, mode: Spool.fileMode)
                {
                    fd.close()
                }
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
}
