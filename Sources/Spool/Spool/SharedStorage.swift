import CSpool
import Glibc
import SpoolNames
import SpoolSystem
import Synchronization

/// What a spool on storage that several hosts share needs (spool(5), "Shared spools"), in one place, so that
/// the one-host path reads as a plain spool's: moves by `link` + `unlink` where the file system lacks
/// `RENAME_NOREPLACE`, the time after which two names of one file are a move cut short (a *twin*) rather
/// than one in progress, the lease after which another host's claim is taken back, and the poll that stands
/// in for inotify, which sees no other host's drops. A claim names its host (`ProcessIdentity`), and only a
/// claim of this host is checked by its process.
package final class SharedStorage: Sendable {
    /// Left in the spool root once `RENAME_NOREPLACE` was refused with EINVAL, so that every process on this
    /// spool knows at once that moves are `link` + `unlink` and that two names of one file may be a move in
    /// progress.
    package static let linkMovesMarker = FileName(".link-moves")

    /// How old a pair of names must be before it counts as a move cut short by a crash rather than one in
    /// progress: a `link` + `unlink` takes microseconds. Tests shorten it with `SPOOL_TEST_TWIN_SETTLE`.
    package static let twinSettleSeconds: Int64 =
        Environment.testHook("SPOOL_TEST_TWIN_SETTLE").flatMap { Int64($0) } ?? 60

    /// How often `--watch` looks at a spool on shared storage, whose other hosts' drops raise no inotify
    /// event here.
    package static let pollSeconds: Int64 = 2

    /// The spool directory, not owned: `Spool` closes it.
    private let root: FileDescriptor
    /// Set once `RENAME_NOREPLACE` was refused with EINVAL, or the marker was found.
    private let linkMoves = Atomic<Bool>(false)

    /// The shared-storage side of the spool whose directory is `root`: moves are links from the start when
    /// another process left the marker.
    init(root: FileDescriptor) {
        self.root = root
        if (try? root.status(of: SharedStorage.linkMovesMarker)) != nil { linkMoves.store(true, ordering: .relaxed) }
    }

    /// Whether moves on this spool are `link` + `unlink` (its file system lacks `RENAME_NOREPLACE`).
    package var movesByLink: Bool { linkMoves.load(ordering: .relaxed) }

    /// Whether the spool's file system may be written by other hosts (NFS, FUSE, CIFS, Ceph, 9P).
    package var mayBeShared: Bool { cspool_is_shared(root.rawValue) != 0 }

    /// Whether a file last changed (its links counted) at `changedSeconds` is too young for two of its names to
    /// be told from a move in progress.
    package static func isInMotion(changedSeconds: Int64, nowSeconds: Int64 = Timestamp.nowSeconds()) -> Bool {
        nowSeconds - changedSeconds < twinSettleSeconds
    }

    /// Whether a claim in `cur/` is stale: its worker is gone. On this host the worker is checked directly (pid
    /// and start time), which is exact, so a live claim is never taken away however long its request takes;
    /// another host's cannot be checked, and its claim is stale once both its stamp and, when it can be had,
    /// the file's last touch (`touchedSeconds`, asked only then: a worker uploading a payload touches the file
    /// while it sends) are older than the lease.
    package static func isStale(
        _ claim: Claim, leaseSeconds: Int64, nowSeconds: Int64, touchedSeconds: () -> Int64? = { nil }
    ) -> Bool {
        if let alive = claim.owner.isAlive { return !alive }
        guard nowSeconds - claim.since > leaseSeconds else { return false }
        return touchedSeconds().map { nowSeconds - $0 > leaseSeconds } ?? true
    }

    /// Moves `name` from `source` to `target` as `newName` without ever replacing an entry: `RENAME_NOREPLACE`
    /// where the file system has it; where it answers EINVAL (FUSE, several network file systems), the classic
    /// `link` + `unlink` of qmail and nullmailer, chosen once per spool (`link` never replaces a name either).
    /// A crash between the two leaves both names; `resolveTwin` keeps one. Throws `noSuchFileOrDirectory`
    /// when another worker moved the entry first.
    func move(_ name: FileName, from source: FileDescriptor, to target: FileDescriptor, as newName: FileName)
        throws(Errno)
    {
        if !movesByLink {
            do {
                try source.rename(name, to: target, as: newName)
                return
            } catch .invalidArgument, .notImplemented {
                linkMoves.store(true, ordering: .relaxed)
                if let fd = try? root.open(
                    SharedStorage.linkMovesMarker, O_WRONLY | O_CREAT | O_NOFOLLOW, mode: Spool.fileMode)
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
