import Glibc

/// A value shared between threads, reached only under a POSIX mutex.
///
/// Why not `Synchronization.Mutex`: on Linux it waits on a futex directly, which ThreadSanitizer cannot see,
/// so a TSan run reports every access it guards as a race and hides the real ones. A pthread mutex is what
/// TSan intercepts, and uncontended it costs the same few tens of nanoseconds.
///
/// The value must take space: a debug build's exclusivity check reads an empty value's place before the lock
/// is taken, and TSan reports that as a race (a `Locked(())` did, in a TSan run of the whole suite).
package final class Locked<Value>: @unchecked Sendable {
    /// The mutex, at an address that never moves (a `pthread_mutex_t` must not be copied).
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// The value; read and written only between lock and unlock.
    private var value: Value

    /// A lock guarding `value`.
    package init(_ value: Value) {
        precondition(MemoryLayout<Value>.size > 0, "Locked needs a value that takes space; see the type's comment")
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        // Default attributes: a normal, private mutex; failure is only possible for lack of memory.
        precondition(pthread_mutex_init(mutex, nil) == 0, "pthread_mutex_init failed")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with the value, holding the lock; `body` must not take this lock again.
    package func withLock<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
