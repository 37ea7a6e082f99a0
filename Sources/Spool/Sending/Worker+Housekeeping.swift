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
    /// filings cut short, and removes abandoned files from `tmp/`.
    package func housekeeping() {
        unclaimStranded()
        do {
            try spool.withLock { transaction throws(SystemCallError) in
                // Filings first: a claim whose reason is already filed goes on to failed/, not back to new/.
                try transaction.finishFilings(log: log)
                try transaction.recoverStaleClaims(leaseSeconds: options.leaseSeconds, log: log)
            }
        } catch {
            record(error)
        }
        do { try spool.cleanTemporaryFiles(log: log) } catch { record(error) }
        saySetAside()
    }

    /// Says what moves set out of their way in `new/`: a producer's entry that took the name a write or a
    /// returned claim was to have (`Spool.setAside`).
    package func saySetAside() {
        for line in spool.takeSetAsideNotes() { log.warning(line) }
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

    /// Takes a delivered operation out of `cur/`; returns whether its lane may go on. When the lane sends the
    /// key's next write (`keyGoesOn`), the file leaves `cur/` first, by `retire`. When nothing follows it in
    /// this round, it is removed in place on the removals threads (`PendingRemovals`), with no rename: one
    /// system call less a delivery (a rename costs as much CPU as a request's `sendto`). Until it is removed,
    /// its claim in `cur/` keeps its key from every worker, and it counts as done for `depends_on` only once
    /// removed (`completed`): a crash before then sends it again, and nothing that must follow it goes first.
    /// At most `--concurrency` wait so (`deliveredInCur`), else it is retired: a `kill -9` sends again no more
    /// than twice the requests that can be in flight. A handler's finished `job` is always retired: a crash
    /// runs again only the job it cut short, as spool(5) promises handler authors.
    package func takeOut(delivered claimed: QueueEntry, keyGoesOn: Bool, job: Bool) -> Bool {
        let waits = !keyGoesOn && !job && deliveredInCur.withLock { count in
            guard count < max(1, options.concurrency) else { return false }
            count += 1
            return true
        }
        guard waits else {
            guard retire(claimed) else { return false }
            state.withLock { _ = $0.completed.insert(claimed.id) }
            return true
        }
        removals.run { [self] in
            defer { deliveredInCur.withLock { $0 -= 1 } }
            guard removeInPlace(claimed) else {
                log.detail("\(claimed.id): delivered, but it did not leave cur/; it goes again, first")
                return park(claimed)
            }
            state.withLock { _ = $0.completed.insert(claimed.id) }
        }
        return true
    }

    /// Takes a delivered operation out of `cur/` at once (before its key's next write is claimed, or where
    /// `takeOut` says so otherwise): retired to `tmp/` by a rename and removed there by the removals threads
    /// (`PendingRemovals`), or removed in place when it cannot be: where moves are `link` + `unlink` (a crash
    /// between the two would leave a `cur/` name, and recovery would send it again; one `unlink` is also
    /// cheaper there), where this worker could not remove it from `tmp/`, or when the rename fails.
    /// Returns whether the claim left `cur/`: when it did not, its lane must stop, or the key's next write
    /// would go before this one is sent again.
    package func retire(_ claimed: QueueEntry) -> Bool {
        if retiresToTemporary, !spool.movesByLink {
            let retired = spool.retire(claimed)
            if retired.wasMoved {
                let name = claimed.fileName
                removals.run { [self] in
                    do throws(Errno) { try spool.removeTemporary(name) } catch {
                        // Delivered and never sent again: a fault of the disk, said as one; housekeeping
                        // tries again.
                        record(SystemCallError("remove", spool.displayPath(.tmp, name), error))
                    }
                }
                return true
            }
            if let fault = retired.fault { log.detail("\(claimed.id): \(fault); removed from cur/ instead") }
        }
        // Gone too (tmp/ itself may be what is missing) or not retired: removed in place, as it always was.
        return removeInPlace(claimed)
    }

    /// Removes a delivered operation from `cur/`; false when it is still there (a fault: stranded) or gone
    /// (another worker took the claim back, and sends it again).
    package func removeInPlace(_ claimed: QueueEntry) -> Bool {
        switch spool.complete(claimed) {
        case .moved: return true
        case .gone: return false
        case let .fault(fault):
            strand(claimed, fault)
            return false
        }
    }

    /// Keeps a claim this worker could not move on (a full or failing disk) for `unclaimStranded`.
    package func strand(_ claimed: QueueEntry, _ fault: SystemCallError) {
        record(fault)
        stranded.withLock { $0.append(claimed) }
    }

    /// Returns the claims this worker could not move on to `new/`, marked as perhaps sent
    /// (`RetryState.interrupted`); those it still cannot stay stranded (and recovery returns them once this
    /// process is gone).
    package func unclaimStranded() {
        // Stranded after its attempt, perhaps delivered: it comes back saying it may have been sent.
        for claimed in stranded.withLock({ list -> [QueueEntry] in defer { list = [] }; return list }) {
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
