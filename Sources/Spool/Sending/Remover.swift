import SpoolNames
import SpoolQueue
import SpoolSystem

/// Takes delivered operations out of `cur/`, with as few system calls on the lane's thread as a crash allows:
/// one owner for the last step of a delivery, and the only code that completes or retires a claim (a
/// coalesced write's too: `Worker.coalesce`).
package final class Remover: Sendable {
    /// The spool the delivered files are in.
    private let spool: Spool
    /// Where removals are made while the lanes go on.
    private let pending = PendingRemovals()
    /// How many delivered files wait in `cur/` for their removal: at most `cap`.
    private let waitingInCur = Locked(0)
    /// `--concurrency`: a `kill -9` sends again no more than twice the requests that can be in flight.
    private let cap: Int
    /// Whether this worker may remove what it retires to `tmp/` (it is root or owns `tmp/`).
    private let retiresToTemporary: Bool
    /// Where a removal that fails for a fault is noted, and its claim stranded.
    private let faults: Faults
    /// Where a file that did not leave `cur/` is said.
    private let log: Log

    /// A remover for `spool`'s delivered files, at most `concurrency` of them waiting in `cur/`.
    package init(spool: Spool, concurrency: Int, faults: Faults, log: Log) {
        self.spool = spool
        cap = max(1, concurrency)
        self.faults = faults
        self.log = log
        // A file retired to a sticky tmp/ can be removed there only by its owner, tmp/'s owner or root: where
        // this worker is none of them (a layout spool(5) does not describe), delivered files stay in cur/.
        let user = UserDatabase.effectiveUser
        retiresToTemporary = user == 0 || spool.folderStatus(.tmp)?.owner == user
    }

    /// Takes a delivered operation out of `cur/`; returns whether its lane may go on. When the lane sends the
    /// key's next write (`keyGoesOn`), the file leaves `cur/` first, by `retire`. When nothing follows it in
    /// this round, it is removed in place on the removals threads (`PendingRemovals`), with no rename: one
    /// system call less a delivery (a rename costs as much CPU as a request's `sendto`). Until it is removed,
    /// its claim in `cur/` keeps its key from every worker, and `removed` is called only once it is gone (true:
    /// done for `depends_on`) or known to stay (false: its key waits): a crash before then sends it again, and
    /// nothing that must follow it goes first. At most `--concurrency` wait so, else it is retired. A handler's
    /// finished `job` is always retired: a crash runs again only the job it cut short, as spool(5) promises
    /// handler authors.
    package func takeOut(
        _ claimed: QueueEntry, keyGoesOn: Bool, job: Bool, removed: @escaping @Sendable (Bool) -> Void
    ) -> Bool {
        let waits = !keyGoesOn && !job && waitingInCur.withLock { count in
            guard count < cap else { return false }
            count += 1
            return true
        }
        guard waits else {
            guard retire(claimed) else { return false }
            removed(true)
            return true
        }
        pending.run { [self] in
            defer { waitingInCur.withLock { $0 -= 1 } }
            let gone = removeInPlace(claimed)
            if !gone { log.detail("\(claimed.id): delivered, but it did not leave cur/; it goes again, first") }
            removed(gone)
        }
        return true
    }

    /// Takes a delivered operation out of `cur/` at once (before its key's next write is claimed, or where
    /// `takeOut` says so otherwise): retired to `tmp/` by a rename and removed there by the removals threads,
    /// or removed in place when it cannot be: where moves are `link` + `unlink` (a crash between the two would
    /// leave a `cur/` name, and recovery would send it again; one `unlink` is also cheaper there), where this
    /// worker could not remove it from `tmp/`, or when the rename fails. Returns whether the claim left `cur/`:
    /// when it did not, its lane must stop, or the key's next write would go before this one is sent again.
    package func retire(_ claimed: QueueEntry) -> Bool {
        if retiresToTemporary, !spool.storage.movesByLink {
            let retired = spool.retire(claimed)
            if retired.wasMoved {
                let name = claimed.fileName
                pending.run { [spool, faults] in
                    do throws(Errno) { try spool.removeTemporary(name) } catch {
                        // Delivered and never sent again: a fault of the disk, said as one; housekeeping
                        // tries again.
                        faults.record(SystemCallError("remove", spool.displayPath(.tmp, name), error))
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
            faults.strand(claimed, fault)
            return false
        }
    }

    /// Returns once every removal handed over so far is made: before the next plan, so that it sees no
    /// delivered claim in `cur/`, and before the run ends.
    package func drain() async { await pending.drain() }
}
