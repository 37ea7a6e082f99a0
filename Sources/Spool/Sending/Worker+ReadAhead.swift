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
                  hash != 0, limits.hasAnswered(hash: hash), downOrigin(hash: hash) == nil
            else { return nil }
            guard let read = try? spool.readOperationAndStatus(
                .new, entry.fileName, maxSize: options.maxSize, maxPayload: maxPayload)
            else { return nil }
            return (read.operation, read.status.identity)
        }
    }

    /// Asks for the first documents of the lanes a batch further on when lane `index` is taken, a batch at a
    /// time: one wake-up of the reading thread a batch. Further on by `--concurrency` at least, so that no
    /// lane asked for is already under way.
    package func readAhead(lanesAfter index: Int, of plan: Plan) {
        guard let ahead = plan.readAhead, index % ReadAhead.batch == 0 else { return }
        let start = min(plan.lanes.count, index + max(ReadAhead.batch, options.concurrency))
        let end = min(plan.lanes.count, start + ReadAhead.batch)
        ahead.want(plan.lanes[start..<end].compactMap(\.first))
    }
}

/// What one lane asked the read-ahead for: the entries after the one just claimed, a batch at a time, asked
/// for only once a claim is won (a lane that stops at its first entry asks for nothing); what the lane did
/// not come to is forgotten when it stops.
package struct LaneReadAhead {
    /// The lane's entries.
    let lane: [QueueEntry]
    /// The round's read-ahead, if any.
    let ahead: ReadAhead?
    /// The entry the lane is at.
    package var current = 0
    /// Where the entries asked for end.
    var askedUpTo = 0

    /// Nothing asked for yet.
    package init(lane: [QueueEntry], ahead: ReadAhead?) {
        self.lane = lane
        self.ahead = ahead
    }

    /// Entry `index` is claimed: the next batch is asked for when the last runs out.
    package mutating func claimed(_ index: Int) {
        guard let ahead, index + 1 >= askedUpTo, index + 1 < lane.count else { return }
        askedUpTo = min(lane.count, index + 1 + ReadAhead.batch)
        ahead.want(lane[(index + 1)..<askedUpTo])
    }

    /// Forgets what was asked for from the entry the lane stopped at on (taking it already forgot it).
    package func forgetTheRest() {
        guard let ahead, askedUpTo > current else { return }
        ahead.forget(lane[current..<askedUpTo])
    }
}
