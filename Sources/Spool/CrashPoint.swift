import Glibc

/// Named points between the steps of a multi-step change, where a test can have the process killed with
/// SIGKILL (`SPOOL_CRASH_AT=NAME`), to prove that a crash at each of them leaves every operation in exactly
/// one place. Costs one comparison when the variable is unset.
public enum CrashPoint {
    static let armed: String? = Program.environment("SPOOL_CRASH_AT")

    /// Dies by SIGKILL here when `SPOOL_CRASH_AT` names this point.
    @inline(__always)
    public static func reach(_ name: StaticString) {
        guard let armed else { return }
        if armed == name.description { kill(getpid(), SIGKILL) }
    }
}
