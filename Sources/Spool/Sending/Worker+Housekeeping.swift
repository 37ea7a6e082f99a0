import Glibc
import Synchronization
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
    package func strand(_ claimed: QueueEntry) {
        stranded.withLock { $0.append(claimed) }
    }

    /// Returns dead workers' claims and this worker's stranded ones to `new/`, completes (or clears)
    /// filings cut short, and removes abandoned files from `tmp/`.
    public func housekeeping() {
        returnStranded()
        do {
            try lock.withLock { held throws(SpoolFault) in
                // Filings first: a claim whose reason is already filed goes on to failed/, not back to new/.
                try spool.finishFilings(log: log, held)
                try spool.recoverStaleClaims(lease: options.lease, log: log, held)
            }
        } catch {
            record(error)
        }
        do { try spool.cleanTemporaryFiles(log: log) } catch { record(error) }
    }

    /// Returns the claims this worker could not move on to `new/`, unchanged; those it still cannot stay
    /// stranded (and recovery returns them once this process is gone).
    public func returnStranded() {
        for claimed in stranded.withLock({ list -> [QueueEntry] in defer { list = [] }; return list }) {
            do throws(Errno) {
                try lock.withLock { held throws(Errno) in try spool.release(claimed, state: claimed.state, held) }
            } catch .noSuchFileOrDirectory {
                // Gone already.
            } catch {
                strand(claimed)
                record(SpoolFault("return the claim", spool.displayPath(.cur, claimed.fileName), error))
            }
        }
    }

    /// Makes due at once what transport failures deferred (refused, dns, timeout, lost): the network changed,
    /// so their backoff no longer says anything. Said with `-v`; a fault is recorded like any other.
    public func retryNetworkFailures() {
        do throws(Errno) {
            let made = try spool.makeDue(deferredBy: TransportFailure.networkTokens)
            if made > 0 { log.detail("the network changed: \(made) operation(s) deferred by transport failures are due now") }
        } catch {
            record(SpoolFault("list", "\(spool.path)/new", error))
        }
    }
}
