import CSpool
import Glibc
import SpoolDocument
import SpoolNames
import SpoolSystem
import SpoolTransport

/// An exclusive lock on the spool, held while a worker looks at the queue and claims, and while it returns
/// operations to `new/`. Listing `new/` and `cur/` is not atomic; the lock keeps another worker from moving
/// an earlier operation of a key between them, which could otherwise let a later one be sent first.
/// Sending happens outside the lock.
///
/// The lock is `flock` on `.lock` in the spool root. It is opened read-only, so that a running worker does
/// not keep an administrator from remounting the spool read-only (the kernel refuses while a file is open
/// for writing); on NFS, where flock is emulated with a byte-range lock that needs a file open for
/// writing, read-write. Without access to it (a read-only spool, where nothing moves anyway) it falls back
/// to the spool directory itself.
package final class SpoolLock: Sendable {
    /// The descriptor locked, opened at first use, and whether it is `.lock` (else the spool root's).
    package let opened = Locked<(descriptor: FileDescriptor, owned: Bool)?>(nil)
    /// The spool that owns this lock (and outlives it).
    package unowned let spool: Spool
    /// The path of `.lock`, as errors name it.
    package let path: String
    /// How this process used the lock since `takeUse` last asked.
    private let use = Locked(LockUse())

    /// A lock on `spool`, opened at first use.
    package init(_ spool: Spool) {
        self.spool = spool
        path = spool.path + "/.lock"
    }

    deinit {
        opened.withLock { if let opened = $0, opened.owned { opened.descriptor.close() } }
    }

    /// `.lock`, opened now; the root itself only where `.lock` may not be made or opened (EACCES, EROFS).
    /// Any other error (a network file system out of reach) is the caller's, and the next use tries again:
    /// a lock silently taken on another file would exclude no one.
    package static func open(_ spool: Spool) throws(Errno) -> (descriptor: FileDescriptor, owned: Bool) {
        let nfs = cspool_is_nfs(spool.root.rawValue) != 0
        do {
            return (
                try spool.root.open(
                    FileName(".lock"), (nfs ? O_RDWR : O_RDONLY) | O_CREAT | O_NOFOLLOW, mode: Spool.fileMode), true
            )
        } catch  where error == .permissionDenied || error == .readOnlyFileSystem || error == .notPermitted {
            return (spool.root, false)
        }
    }

    /// Runs `body` holding the lock against other processes (flock) and other threads of this one, with the
    /// transaction whose methods are the locked transitions. A lock that cannot be taken (a network file
    /// system out of reach) is thrown as the body's own error, so the step fails like any other system call
    /// of it, and nothing moves without the lock.
    package func withLock<R, E: LockFailureRepresentable>(_ body: (Spool.Transaction) throws(E) -> R) throws(E) -> R {
        // The wait counts from before this process's own threads, which queue on `opened`'s mutex.
        let asked = Timestamp.monotonicNanoseconds()
        return try opened.withLock { opened throws(E) -> R in
            if opened == nil {
                do throws(Errno) { opened = try SpoolLock.open(spool) } catch { throw E.lockFailed(path, error) }
            }
            let descriptor = opened!.descriptor
            while flock(descriptor.rawValue, LOCK_EX) != 0 {
                let error = Errno.current
                if error == .interrupted { continue }
                // A descriptor a network file system's client gave up on stays dead (GlusterFS answers EBADFD
                // for good on one that held a lock when its connection dropped): the next use opens `.lock`
                // anew instead of failing on it for the life of a watcher.
                if error.faultClass == .disconnected, let held = opened, held.owned {
                    held.descriptor.close()
                    opened = nil
                }
                throw E.lockFailed(path, error)
            }
            let taken = Timestamp.monotonicNanoseconds()
            defer {
                let held = Timestamp.monotonicNanoseconds() - taken
                flock(descriptor.rawValue, LOCK_UN)
                use.withLock { $0.add(waited: taken - asked, held: held) }
            }
            return try body(Spool.Transaction(spool))
        }
    }

    /// How this process used the lock since the last call, which starts the count anew.
    package func takeUse() -> LockUse {
        use.withLock { use in
            defer { use = LockUse() }
            return use
        }
    }

    /// Whether the descriptor locked still names `.lock` in the spool (not one replaced or remounted).
    package var reachesItsPath: Bool {
        opened.withLock { opened in
            guard let opened, opened.owned else { return true }
            return opened.descriptor.isSameFile(as: FileName(".lock"), in: spool.root)
        }
    }
}

/// An error a step under the spool lock can fail with, which a lock that cannot be taken is reported as.
package protocol LockFailureRepresentable: Error {
    /// The error for the lock at `path` refused with `error`.
    static func lockFailed(_ path: String, _ error: Errno) -> Self
}

extension Errno: LockFailureRepresentable {
    /// The errno itself: the caller reports it with the path of the entry it was moving.
    package static func lockFailed(_ path: String, _ error: Errno) -> Errno { error }
}

extension SystemCallError: LockFailureRepresentable {
    /// A fault while locking `path`.
    package static func lockFailed(_ path: String, _ error: Errno) -> SystemCallError {
        SystemCallError("lock", path, error)
    }
}

extension Spool {
    /// The spool while its lock is held. The transitions that could reorder a key's operations if two workers
    /// raced them (claim, unclaim, admission, recovery, operator moves) are its methods, in
    /// `Transitions.swift`, and only `withLock` makes one, so none of them can be called without the lock.
    /// Each returns what the move came to (`MoveResult`).
    package struct Transaction: Sendable {
        /// The spool locked.
        package let spool: Spool

        fileprivate init(_ spool: Spool) { self.spool = spool }
    }
}
