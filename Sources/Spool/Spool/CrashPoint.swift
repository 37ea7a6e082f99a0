import Glibc
import SpoolSystem
import Synchronization

/// Named points between the steps of a multi-step change, where a test can have the process killed with
/// SIGKILL, to prove that a crash at each of them leaves every operation in exactly one place.
/// `SPOOL_CRASH_AT=NAME` dies the first time NAME is reached, `NAME#N` the Nth time. Costs one load when
/// the variable is unset.
package enum CrashPoint {
    /// The point `SPOOL_CRASH_AT` names and which time reaching it kills (1 without `#N`); nil when it is unset.
    package static let armed: (name: String, count: Int)? = Environment.testHook("SPOOL_CRASH_AT").map { text in
        guard let hash = text.firstIndex(of: "#"), let count = Int(text[text.index(after: hash)...]) else {
            return (text, 1)
        }
        return (String(text[..<hash]), count)
    }
    /// How many times the armed point has been reached.
    package static let reached = Atomic<Int>(0)

    /// Dies by SIGKILL here when `SPOOL_CRASH_AT` names this point (and this is the time it counts).
    @inline(__always)
    package static func reach(_ name: StaticString) {
        guard let armed, armed.name == name.description else { return }
        if reached.add(1, ordering: .relaxed).newValue == armed.count { kill(getpid(), SIGKILL) }
    }
}
