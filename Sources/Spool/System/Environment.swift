import Glibc

/// The process environment, read in one place.
public enum Environment {
    /// The value of environment variable `name`, nil when unset or empty.
    public static func value(_ name: String) -> String? {
        guard let value = getenv(name), value.pointee != 0 else { return nil }
        return String(cString: value)
    }
}
