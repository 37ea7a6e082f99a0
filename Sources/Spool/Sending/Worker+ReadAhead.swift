import SpoolNames
import SpoolSystem

/// Reading the lanes' documents ahead of them (`ReadAhead`).
extension Worker {
    /// A read-ahead for this round's lanes; nil without a transport, whose engine's thread it relieves.
    package func makeReadAhead() -> ReadAhead? {
        guard transport != nil else { return nil }
        return ReadAhead { [self] entry in
            // Only what the lane would read next: not a name held or not yet due, and only to an origin that
            // answered in this run, so that a run over a down origin's backlog opens only the probe's document
            // (and one that failed since is left unread, as `process` leaves it).
            let hash = entry.state.originHash
            guard !isStopping, !entry.state.held, options.flush || entry.state.dueSeconds <= Timestamp.nowSeconds(),
                  hash != 0, limits.hasAnswered(hash: hash), blockedOrigin(hash: hash) == nil
            else { return nil }
            guard let read = try? spool.readOperationAndStatus(
                .new, entry.fileName, maxSize: options.maxSize, maxPayload: options.maxPayload)
            else { return nil }
            return (read.operation, read.status.inode)
        }
    }

    /// Asks for the documents of the entries of `lane` that come after `index`, a batch at a time; returns
    /// where the entries asked for end.
    package func readAhead(_ lane: [QueueEntry], after index: Int, askedUpTo: Int, plan: Plan) -> Int {
        guard let ahead = plan.readAhead, index + 1 >= askedUpTo, index + 1 < lane.count else { return askedUpTo }
        let end = min(lane.count, index + 1 + ReadAhead.batch)
        ahead.want(lane[(index + 1)..<end])
        return end
    }
}
