import SpoolConfiguration
import SpoolDocument
import SpoolNames
import SpoolQueue
import SpoolSystem

/// Carrying out an operation's life: each action of its `OperationStateMachine` done, and what came of it told
/// back, until the machine says what the lane does next. The decisions are all the machine's.
extension Worker {
    /// An operation a lane read, with what its life needs to know of the lane.
    package struct ReadOperation {
        /// Its name as listed.
        package var entry: QueueEntry
        /// Its document.
        package var operation: Operation
        /// The file it was read from: the claimed file must still be it (`asClaimed`).
        package var source: FileIdentity
        /// The lane's next operation, if any.
        package var next: QueueEntry?
    }

    /// Lives `read`'s life; `onSend` is called when it is first sent. Returns what the lane does next.
    package func live(
        _ read: ReadOperation, plan: Plan, nowSeconds: Int64, onSend: () -> Void
    ) async -> OperationStateMachine.Finish {
        var machine = OperationStateMachine(facts(of: read, nowSeconds: nowSeconds))
        var action = machine.start()
        let share = share(read.operation)
        var claimed = read.entry, sending = read.operation
        var ticket: Int?, outcome: Outcome?
        while true {
            // Each step is the loop at work: a request or a push-back's wait ends within its bound, so a
            // loop stuck anywhere else stops pinging systemd's watchdog.
            options.service?.alive()
            // Room is held from its grant to the send that uses it; every other way on gives it back.
            if let held = ticket, !action.usesRoom {
                limits.finish(share, ticket: held, nil)
                ticket = nil
            }
            switch action {
            case let .look(what):
                action = machine.receive(lookUp(what, read, plan: plan))
            case .waitForRoom:
                ticket = await room(at: share, read.operation.origin, for: read.entry.id)
                action = machine.receive(.room(granted: ticket != nil, nowSeconds: Timestamp.nowSeconds()))
            case .claim:
                let claim = spool.withLock { transaction in transaction.claim(read.entry) }
                if let fault = claim.fault { record(fault) }
                if let made = claim.value { claimed = made }
                action = machine.receive(.claimed(won: claim.value != nil, holdUntilSeconds: pushBackLimit(claimed)))
            case .checkClaim:
                let now = asClaimed(claimed, read.operation, file: read.source)
                if let now { sending = now }
                action = machine.receive(.checked(sameRequest: now != nil))
            case let .send(again):
                if !again {
                    onSend()
                } else if case let .pushedBack(token, _, _, _) = outcome {
                    // The push-back answered before counts now; the last answer is counted by its move.
                    limits.count(share, .deferred, retry: claimed.state.attempts > 0)
                    log.detail("\(claimed.id): HTTP \(token) from \(sending.origin); sent again at its rate")
                }
                outcome = await attempt(claimed, sending, ticket: ticket)
                ticket = nil
                action = machine.receive(
                    .answered(outcome, nowMicroseconds: Timestamp.nowMicroseconds(), stopping: isStopping))
            case let .fail(reason):
                action = machine.receive(.moved(file(read.entry, from: .new, to: .failed, reason: reason, sending)))
            case .coalesce:
                action = machine.receive(.moved(read.next.map { coalesce(read.entry, into: $0) } ?? false))
            case .complete, .file, .deferral, .unclaim:
                let made = await move(action, claimed, sending, outcome: outcome, keyGoesOn: read.next != nil)
                action = machine.receive(.moved(made))
            case let .finish(how):
                return how
            }
        }
    }

    /// The facts the machine starts from: the run's state and options; lookups come later, when asked for.
    func facts(of read: ReadOperation, nowSeconds: Int64) -> OperationStateMachine.Facts {
        let down = state.withLock { $0.downOrigins[read.operation.origin] != nil }
        return OperationStateMachine.Facts(
            entry: read.entry, operation: read.operation, nowSeconds: nowSeconds,
            lifetimeSeconds: options.lifetimeSeconds, allowedOrigins: options.allowedOrigins,
            producerRights: rights(of: read.operation),
            producerPolicyPath: limits.withConfiguration(\.producerPolicyPath),
            originDown: down, claimSuffixLength: Claim(owner: .current, since: nowSeconds).suffix.count,
            backoff: options.backoff)
    }

    /// Looks up what the machine asked for, from the spool.
    func lookUp(_ what: OperationStateMachine.Lookup, _ read: ReadOperation, plan: Plan)
        -> OperationStateMachine.Event
    {
        switch what {
        case .dependencies:
            return .dependencies(dependencies(of: read.operation, read.entry, plan: plan))
        case .nextKey:
            let newer = read.next.flatMap { try? readDocument(.new, $0.fileName)?.operation }
            // Only the same producer's write replaces one: another's may not cancel it.
            return .nextKey(same: newer?.key == read.operation.key && newer?.producer == read.operation.producer)
        }
    }

    /// Makes the move an answer, or a claim that cannot be sent, calls for; returns whether this worker made it.
    /// Requests' moves after an answer count in their origin's record.
    func move(
        _ action: OperationStateMachine.Action, _ claimed: QueueEntry, _ operation: Operation, outcome: Outcome?,
        keyGoesOn: Bool
    ) async -> Bool {
        if operation.handler == nil, let kind = action.deliveryKind {
            limits.count(share(operation), kind, retry: claimed.state.attempts > 0)
        }
        switch action {
        case .complete:
            let removed: @Sendable (Bool) -> Void = { [self] gone in
                // Done for `depends_on` once gone; else it goes again, first, and its key waits for it.
                state.withLock { run in
                    if gone { run.completed.insert(claimed.id) } else { run.parkedKeys.insert(claimed.laneKey) }
                }
            }
            let job = operation.handler != nil
            guard remover.takeOut(claimed, keyGoesOn: keyGoesOn, job: job, removed: removed) else {
                // Delivered, but still in cur/ (the disk refused every move) or taken back by another worker:
                // it will be sent again, and the key's next write and its dependants wait for that.
                log.detail("\(claimed.id): delivered, but it did not leave cur/; it goes again, first")
                return false
            }
            log.detail("\(claimed.id): done", LogFields(claimed, operation, outcome: "done"))
            state.withLock { $0.summary.done += 1 }
            return true
        case .file(let destination, var reason):
            if let outcome, let theirs = await fetchServerVersion(outcome, claimed, operation) {
                reason.fields += theirs.fields
                reason.body = theirs.body
            }
            // Not filed, or filed but not synced (a fault), means decided again later, and gone means another
            // worker's: either way the key's next write waits, for the rest of the run.
            return file(claimed, from: .cur, to: destination, reason: reason, operation)
        case let .unclaim(reason):
            // As it was: no attempt counted, no backoff, its key's order kept; its origin's pause or rate
            // decides when it goes, or the next run when it was not sent.
            let made = unclaim(claimed, state: claimed.state)
            if let reason {
                log.detail("\(claimed.id): \(reason) from \(operation.origin); back in its place for the origin's rate")
            }
            return made
        case let .deferral(next, reason, takesOriginDown, kept):
            deferral(claimed, operation, next: next, reason: reason, takesOriginDown: takesOriginDown, kept: kept)
            return true
        default:
            preconditionFailure("\(action) is not a move of a claim")
        }
    }

    /// Gives a claim back with its next attempt's state, and notes what the run must know of it.
    func deferral(
        _ claimed: QueueEntry, _ operation: Operation, next: RetryState, reason: String, takesOriginDown: Bool,
        kept: FilingReason
    ) {
        // Kept while still claimed: no other worker can finish the operation and leave it behind.
        do throws(Errno) { try spool.keepDeferral(of: claimed.id, kept, at: Timestamp.nowSeconds()) } catch {
            log.detail("\(claimed.id): the reason of this deferral was not kept: \(error)")
        }
        unclaim(claimed, state: next)
        log.detail(
            "\(claimed.id): \(reason); attempt \(next.attempts), next at \(Timestamp.formatRFC3339(next.dueSeconds))",
            LogFields(claimed, operation, outcome: "deferred"))
        warnIfDelayed(claimed, operation, next: next, reason: reason)
        // Its name holds the key back until its retry time, in later rounds of this run too (a long run retries
        // it when due, as a watcher would); only --flush, which ignores retry times, needs the key parked. A
        // transport failure took its origin down already (`unreachable`); a handler that cannot run takes its
        // jobs here.
        state.withLock {
            $0.summary.deferred += 1
            if options.flush { $0.parkedKeys.insert(claimed.laneKey) }
            $0.resumeAt = min($0.resumeAt ?? next.dueSeconds, next.dueSeconds)
            if takesOriginDown, $0.downOrigins[operation.origin] == nil {
                $0.markDown(operation.origin, token: next.lastError ?? "failed")
            }
        }
    }
}

extension OperationStateMachine.Action {
    /// Whether the room at the origin is still needed: for the claim and its check, and for the send it is for.
    var usesRoom: Bool {
        switch self {
        case .claim, .checkClaim, .send: true
        default: false
        }
    }

    /// How an origin's record counts this move of a request after its answer; nil for other actions.
    var deliveryKind: DeliveryCounts.Kind? {
        switch self {
        case .complete: .delivered
        case .file(.conflict, _): .conflicted
        case .file: .failed
        case .deferral: .deferred
        case let .unclaim(reason): reason == nil ? nil : .deferred
        default: nil
        }
    }
}
