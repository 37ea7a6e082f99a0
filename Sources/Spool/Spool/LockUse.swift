/// How a process used the spool lock since it last asked: how often it took it, how long it waited for it
/// (behind its own threads and other workers) and how long it held it. What another worker on the same spool
/// waits for is the time held: it should be a rename's, never a disk's flush (`-v`, `spool-bench`).
package struct LockUse: Sendable, Equatable {
    /// Times the lock was taken: one listing, claim, return to `new/` or batch of admissions each, or
    /// housekeeping's recovery.
    package var takes = 0
    /// Time spent waiting to take it, in nanoseconds.
    package var waitedNanoseconds: Int64 = 0
    /// Time it was held, in nanoseconds.
    package var heldNanoseconds: Int64 = 0
    /// The longest it was held at one take, in nanoseconds.
    package var longestHeldNanoseconds: Int64 = 0

    /// No use yet.
    package init() {}

    /// Counts one take that waited `waited` and held the lock for `held` nanoseconds.
    package mutating func add(waited: Int64, held: Int64) {
        takes += 1
        waitedNanoseconds += waited
        heldNanoseconds += held
        longestHeldNanoseconds = max(longestHeldNanoseconds, held)
    }

    /// The use in words, for a run's `-v` line: `spool lock taken 3 times, held 0.1 ms (longest 0.05 ms),
    /// waited 0.0 ms`.
    package var line: String {
        "spool lock taken \(takes) times, held \(LockUse.milliseconds(heldNanoseconds)) (longest "
            + "\(LockUse.milliseconds(longestHeldNanoseconds))), waited \(LockUse.milliseconds(waitedNanoseconds))"
    }

    /// Nanoseconds as milliseconds with two decimals: `0.05 ms`.
    static func milliseconds(_ nanoseconds: Int64) -> String {
        let hundredths = (nanoseconds + 5_000) / 10_000
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction) ms"
    }
}
