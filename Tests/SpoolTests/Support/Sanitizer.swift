import Glibc
import Testing

/// The sanitizer this test process was built with (`swift test --sanitize=…`), found by its runtime's own
/// symbol; nil for a plain build. The sanitized passes of `.ci/run` skip what a sanitizer distorts: peak
/// memory (shadow memory is counted) and hundred-thousand-operation scale (ten times slower, and it runs
/// the same code as the small tests).
enum Sanitizer {
    static let name: String? = [("__tsan_init", "thread"), ("__asan_init", "address")]
        .first { dlsym(nil, $0.0) != nil }?.1

    /// The environment for a child whose exit LeakSanitizer cannot check: one run under ptrace (strace), where
    /// its check stops with a fatal error and status 1, or under a descriptor limit too low for the check,
    /// where it hangs. Leak checking is off for that one process; AddressSanitizer's other checks stay on.
    static var withoutLeakCheck: [String: String] {
        guard let options = getenv("ASAN_OPTIONS").map({ String(cString: $0) }) else { return [:] }
        return ["ASAN_OPTIONS": options + ":detect_leaks=0"]
    }

    /// The reason a test skips under a sanitizer, for `.enabled(if:)`.
    static let distorts: Comment = "skipped under a sanitizer, which distorts memory and time"
}
