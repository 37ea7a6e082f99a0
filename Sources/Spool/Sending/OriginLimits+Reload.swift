import SpoolConfiguration
import SpoolQueue
import SpoolSystem

/// spool.conf(5) read again by a watcher (SIGHUP): the new settings apply at once, to the windows already
/// open too, and what the origins taught (rates, pauses, probes) is kept.
extension OriginLimits {
    /// What `read` takes from spool.conf(5) as in use now: on the per-request and per-read paths only the part
    /// needed is copied out, not the whole configuration.
    package func withConfiguration<Value>(_ read: (SpoolConfiguration) -> Value) -> Value {
        inUse.withLock { read($0) }
    }

    /// Puts `configuration` in use: each open window takes its origin's new maximum, rate and burst.
    package func reconfigure(_ configuration: SpoolConfiguration) {
        inUse.withLock { $0 = configuration }
        state.withLock { state in
            for share in Array(state.windows.keys) {
                let origin = configuration.settings(for: String(OriginRecord.origin(ofShare: share)))
                state.windows[share]?.reconfigure(
                    maximum: maximum(origin), rate: origin.rate, burst: origin.burst)
            }
        }
    }
}
