import Foundation

/// Whether `condition` holds within `seconds`: asked at once, then every `interval` until it holds or the
/// deadline passes. A wait on a condition with a deadline, never a fixed sleep.
func eventually(within seconds: TimeInterval, every interval: TimeInterval = 0.1, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while true {
        if condition() { return true }
        if Date() >= deadline { return false }
        Thread.sleep(forTimeInterval: min(interval, max(0, deadline.timeIntervalSinceNow)))
    }
}
