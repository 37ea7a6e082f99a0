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
}
