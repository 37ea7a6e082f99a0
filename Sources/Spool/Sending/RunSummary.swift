import SpoolConfiguration
import SpoolDocument
import SpoolHandlers
import SpoolNames
import SpoolQueue
import SpoolSystem
import SpoolTransport

/// What one run of a worker did, counted per outcome.
public struct RunSummary: Sendable, Equatable {
    /// Requests sent.
    public var attempts = 0
    /// Operations done and removed.
    public var done = 0
    /// Operations returned to `new/` to retry later.
    public var deferred = 0
    /// Operations filed in `failed/`.
    public var failed = 0
    /// Operations filed in `conflict/`.
    public var conflicts = 0
    /// Operations replaced by a newer one with the same key.
    public var coalesced = 0
    /// Earliest time, epoch seconds, at which a waiting operation becomes due; nil when none waits.
    public var nextDue: Int64?
    /// Keys whose first operation is on hold at the end of the run: they wait for `spool-ctl release`.
    public var heldKeys = 0
    /// How the run used the spool lock: what another worker on the spool waited for.
    public var lockUse = LockUse()

    /// An empty summary.
    public init() {}

    /// Whether the run did anything at all.
    public var isEmpty: Bool { attempts + done + deferred + failed + conflicts + coalesced == 0 }

    /// The run in one line, for `-v`: `3 sent: 2 done, 1 deferred, 0 failed, 0 conflict; next at T; spool lock
    /// taken 9 times, held 0.20 ms (longest 0.05 ms), waited 0.01 ms`.
    public var line: String {
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
