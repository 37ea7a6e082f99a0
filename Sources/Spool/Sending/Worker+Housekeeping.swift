import Glibc
import SpoolConfiguration
import SpoolDocument
import SpoolHandlers
import SpoolNames
import SpoolQueue
import SpoolSystem
import SpoolTransport

/// What a worker does before sending and every minute while watching: claims of the dead, filings cut
/// short, abandoned temporary files, and its own stranded claims.
extension Worker {
    /// Returns dead workers' claims and this worker's stranded ones to `new/`, completes (or clears)
    /// filings cut short, and removes abandoned files from `tmp/`. Returns the names its listing of `cur/`
    /// found when recovery moved none of them (nil otherwise), for a plan made next to take instead of listing
    /// `cur/` again.
    @discardableResult
    package func housekeeping() -> [FileName]? {
        unclaimStranded()
        var listed: [FileName]?
        do {
            try spool.withLock { transaction throws(SystemCallError) in
                // Filings first: a claim whose reason is already filed goes on to failed/, not back to new/.
                try transaction.finishFilings(log: log)
                try transaction.recoverStaleClaims(leaseSeconds: options.leaseSeconds, log: log) { listed = $0 }
            }
        } catch {
            record(error)
            listed = nil
        }
        do { try spool.cleanTemporaryFiles(log: log) } catch { record(error) }
        saySetAside()
        return listed
    }

    /// Says what moves set out of their way in `new/`: a producer's entry that took the name a write or a
    /// returned claim was to have (`Spool.setAside`).
    package func saySetAside() {
        for line in spool.users.takeSetAsideNotes() { log.warning(line) }
    }

    /// Returns a claim to `new/` with `state` (as it was, or the next retry's): the one way a worker gives a
    /// claim back. One it cannot move is recorded as a fault and stays stranded until housekeeping, since
    /// recovery never takes a live worker's claims; one found gone belongs to the worker that moved it
    /// (recovering a claim it took for stale). Returns whether this call moved it.
    @discardableResult
    package func unclaim(_ claimed: QueueEntry, state: RetryState) -> Bool {
        switch spool.unclaim(claimed, state: state) {
        case .moved: return true
        case .gone: return false
        case let .fault(fault):
            strand(claimed, fault)
            return false
        }
    }

    /// Keeps a claim this worker could not move on (a full or failing disk) for `unclaimStranded`.
    package func strand(_ claimed: QueueEntry, _ fault: SystemCallError) { faults.strand(claimed, fault) }

    /// Returns the claims this worker could not move on to `new/`, marked as perhaps sent
    /// (`RetryState.interrupted`); those it still cannot stay stranded (and recovery returns them once this
    /// process is gone).
    package func unclaimStranded() {
        // Stranded after its attempt, perhaps delivered: it comes back saying it may have been sent.
        for claimed in faults.takeStranded() {
            unclaim(claimed, state: claimed.state.interrupted)
        }
    }

    /// Makes due at once what transport failures deferred (refused, dns, timeout, lost): the network changed,
    /// so their backoff no longer says anything. Said with `-v`; a fault is recorded like any other.
    package func retryNetworkFailures() {
        // An unreachable origin's backoff is over too: the network that failed it may be the one that changed.
        let probed = limits.liftBackoff(cause: "unreachable")
        if !probed.isEmpty { log.detail("the network changed: \(probed.joined(separator: ", ")) probed again now") }
        do throws(SystemCallError) {
            let made = try spool.makeDue(deferredBy: TransportError.networkTokens)
            if made > 0 {
                log.detail("the network changed: \(made) operation(s) deferred by transport failures are due now")
            }
        } catch {
            record(error)
        }
    }
}
