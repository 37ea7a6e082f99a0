import CSpool
import Glibc

/// The process environment, read in one place.
package enum Environment {
    /// The value of environment variable `name`, nil when unset or empty.
    package static func value(_ name: String) -> String? {
        guard let value = getenv(name), value.pointee != 0 else { return nil }
        return String(cString: value)
    }

    /// Whether the program runs for a caller with other rights than its own (set-group-ID spool-enqueue,
    /// `getauxval(AT_SECURE)`): then the caller chose the environment and the command line, and neither may
    /// loosen what the administrator set, nor fire a test hook.
    package static let isSecure = cspool_is_secure() != 0

    /// The value of a test hook's variable (`SPOOL_CRASH_AT`, `SPOOL_TEST_*`): nil in secure mode, where the
    /// caller would otherwise have the program killed half-way or its waits shortened.
    package static func testHook(_ name: String) -> String? {
        isSecure ? nil : value(name)
    }

    /// The variable the light front of spool-send sets to its process id before it execs the sender: the
    /// sender, which keeps that id, then knows that housekeeping and the checks of the TLS files were done
    /// for this run. An inherited value names another process and is ignored.
    package static let handOffVariable = "SPOOL_SEND_HOUSEKEPT"

    /// Marks this process's housekeeping as done, for the program it execs next.
    package static func handOff() {
        setenv(handOffVariable, String(getpid()), 1)
    }

    /// Whether this process's housekeeping was done before an exec (`handOff`); the variable is removed, so
    /// that no program this one starts inherits it.
    package static func takeHandOff() -> Bool {
        defer { unsetenv(handOffVariable) }
        return value(handOffVariable) == String(getpid())
    }
}
