import SpoolConfiguration
import SpoolDocument
import SpoolHandlers
import SpoolNames
import SpoolQueue
import SpoolSystem
import SpoolTransport

/// What one run of a worker did, counted per outcome.
package struct RunSummary: Sendable, Equatable {
    /// Requests sent.
    package var attempts = 0
    /// Operations done and removed.
    package var done = 0
    /// Operations returned to `new/` to retry later.
    package var deferred = 0
    /// Operations filed in `failed/`.
    package var failed = 0
    /// Operations filed in `conflict/`.
    package var conflicts = 0
    /// Operations replaced by a newer one with the same key.
    package var coalesced = 0
    /// Earliest time, epoch seconds, at which a waiting operation becomes due; nil when none waits.
    package var nextDue: Int64?
    /// Keys whose first operation is on hold at the end of the run: they wait for `spool-ctl release`.
    package var heldKeys = 0
    /// Origins down (unreachable, unavailable) and origins paused at the end of the run.
    package var downOrigins = 0, pausedOrigins = 0
    /// How the run used the spool lock: what another worker on the spool waited for.
    package var lockUse = LockUse()

    /// An empty summary.
    package init() {}

    /// Whether the run did anything at all.
    package var isEmpty: Bool { attempts + done + deferred + failed + conflicts + coalesced == 0 }

    /// The run in one line, for `-v`: `3 sent: 2 done, 1 deferred, 0 failed, 0 conflict; next at T; spool lock
    /// taken 9 times, held 0.20 ms (longest 0.05 ms), waited 0.01 ms`.
    package var line: String {
        var text = "\(attempts) sent: \(done) done, \(deferred) deferred, \(failed) failed, \(conflicts) conflict"
        if coalesced > 0 { text += ", \(coalesced) coalesced" }
        let waits = [
            nextDue.map { "next at \(Timestamp.formatRFC3339($0))" },
            heldKeys > 0 ? "\(heldKeys) key(s) held until 'spool-ctl release'" : nil,
        ].compactMap { $0 }
        text += "; " + (waits.isEmpty ? "nothing else waits" : waits.joined(separator: ", "))
        return text + "; " + lockUse.line
    }
}
