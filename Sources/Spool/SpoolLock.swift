import Glibc
import Synchronization

/// An exclusive lock on the spool, held while a worker looks at the queue and claims, and while it returns
/// operations to `new/`. Listing `new/` and `cur/` is not atomic; the lock keeps another worker from moving
/// an earlier operation of a key between them, which could otherwise let a later one be sent first.
/// Sending happens outside the lock.
final class SpoolLock: Sendable {
    let descriptor: FileDescriptor
    let local = Mutex<Void>(())

    init(_ descriptor: FileDescriptor) { self.descriptor = descriptor }

    /// Runs `body` holding the lock against other processes (flock) and other threads of this one.
    func withLock<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        try local.withLock { _ throws(E) -> R in
            while flock(descriptor.rawValue, LOCK_EX) != 0, errno == EINTR {}
            defer { flock(descriptor.rawValue, LOCK_UN) }
            return try body()
        }
    }
}
