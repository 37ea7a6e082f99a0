import SpoolConfiguration
import SpoolDocument
import SpoolNames
import SpoolQueue
import SpoolSystem

/// The rules of an operation's life: what the lane does with an operation it read, and which move an answer
/// calls for. Pure: the facts are gathered by the worker.
extension OperationStateMachine {
    /// Everything the rules look at. Dependencies and the next operation's key cost I/O, so they start unknown
    /// (nil) and the machine asks for them (`Action.look`) only when it gets that far.
    package struct Facts {
        /// The operation's name and retry state.
        package var entry: QueueEntry
        /// Its document.
        package var operation: Operation
        /// Seconds since the epoch, when it was read.
        package var nowSeconds: Int64
        /// The queue lifetime (`--lifetime`).
        package var lifetimeSeconds: Int64
        /// The origins requests may go to (`--allow-origin`); nil allows every one. Handler jobs are exempt.
        package var allowedOrigins: Set<String>?
        /// What the operation's producer may name, when the producer policy governs them (nil: it does not).
        package var producerRights: ProducerPolicy.Rights?
        /// The policy's file, for the reason; nil when no file is named (the default policy).
        package var producerPolicyPath: String?
        /// The operation's origin failed at the transport level earlier in this run.
        package var originDown: Bool
        /// Its dependencies, up to the first that is not done; nil until looked up.
        package var dependencies: [Dependency]?
        /// The lane's next operation has the same key (a coalescing write may give way to it); nil until
        /// looked up, false when there is no next.
        package var nextHasSameKey: Bool?
        /// Bytes a claim adds to the file name.
        package var claimSuffixLength: Int
        /// The delays after failed attempts (`--min-backoff`, `--max-backoff`).
        package var backoff: Backoff
        /// Where in its upper half the backoff lands (0…1): spreads retries. Nil draws it when a deferral needs
        /// it (a random draw is a system call; a delivery needs none).
        package var jitter: Double?

        /// The facts of one operation read.
        package init(
            entry: QueueEntry, operation: Operation, nowSeconds: Int64, lifetimeSeconds: Int64,
            allowedOrigins: Set<String>? = nil, producerRights: ProducerPolicy.Rights? = nil,
            producerPolicyPath: String? = nil, originDown: Bool = false, dependencies: [Dependency]? = nil,
            nextHasSameKey: Bool? = nil, claimSuffixLength: Int = 40, backoff: Backoff = Backoff(),
            jitter: Double? = nil
        ) {
            self.entry = entry
            self.operation = operation
            self.nowSeconds = nowSeconds
            self.lifetimeSeconds = lifetimeSeconds
            self.allowedOrigins = allowedOrigins
            self.producerRights = producerRights
            self.producerPolicyPath = producerPolicyPath
            self.originDown = originDown
            self.dependencies = dependencies
            self.nextHasSameKey = nextHasSameKey
            self.claimSuffixLength = claimSuffixLength
            self.backoff = backoff
            self.jitter = jitter
        }

        /// A handler's job: it takes only its concurrency slot, and is never sent again under its claim.
        package var isJob: Bool { operation.handler != nil }
    }

    /// What the lane's rules make of the facts so far.
    enum Rule: Equatable {
        case look(Lookup)
        case claim
        case fail(FilingReason)
        case coalesce
        case finish(Finish)
    }

    /// The lane's rules, in the order they apply.
    func rule() -> Rule {
        let operation = facts.operation, entry = facts.entry
        // --allow-origin limits where requests go; the handler directory is the list of what may run.
        if let allowed = facts.allowedOrigins, operation.handler == nil, !allowed.contains(operation.origin) {
            return .fail(FilingReason([(
                "reason",
                "origin \(operation.origin) is not allowed (spool-send --allow-origin / SPOOL_ALLOW_ORIGINS); "
                    + "nothing was sent"
            )]))
        }
        // In a shared spool, a producer names only the origins, profiles and handlers the policy gives them.
        if let rights = facts.producerRights,
           let why = rights.refusal(operation, policyPath: facts.producerPolicyPath)
        {
            return .fail(FilingReason([("reason", why), ("error", "forbidden")]))
        }
        if facts.originDown { return .finish(.park(.originDown)) }
        if let reason = expiry() { return .fail(reason) }
        if !operation.dependsOn.isEmpty, facts.dependencies == nil { return .look(.dependencies) }
        for dependency in facts.dependencies ?? [] {
            switch dependency {
            case .done: continue
            case .itself: return .fail(FilingReason([("reason", "depends on itself (depends_on names its own id)")]))
            case let .filed(id, folder):
                return .fail(FilingReason([("reason", "depends on \(id), which is in \(folder.rawValue)/")]))
            case let .cycle(id): return .fail(FilingReason([("reason", "depends_on forms a cycle through \(id)")]))
            case .queued: return .finish(.wait)
            }
        }
        if operation.coalesce, entry.state.attempts == 0 {
            guard let same = facts.nextHasSameKey else { return .look(.nextKey) }
            if same { return .coalesce }
        }
        if entry.fileName.bytes.count + facts.claimSuffixLength > 255 {
            return .fail(
                FilingReason([("reason", "the file name is too long to be claimed (a name holds at most 255 bytes)")]))
        }
        return .claim
    }

    /// The reason an operation is past its time, or nil.
    func expiry() -> FilingReason? {
        let state = facts.entry.state
        var why: String?
        if let expires = facts.operation.expiresAt, expires <= facts.nowSeconds {
            why = "expired at \(Timestamp.formatRFC3339(expires)) (expires_at) before it could be delivered"
        } else if facts.nowSeconds - state.orderMicroseconds / 1_000_000 > facts.lifetimeSeconds {
            why =
                "not delivered within the queue lifetime of \(facts.lifetimeSeconds) seconds (enqueued "
                    + "\(Timestamp.formatRFC3339(state.orderMicroseconds / 1_000_000)))"
        }
        guard let why else { return nil }
        var reason = [("reason", why), ("attempts", "\(state.attempts)")]
        if let last = state.lastError { reason.append(("last-error", last)) }
        return FilingReason(reason)
    }

    /// The move an answer calls for: complete, file, defer, or give back (pushed back, and not sent again).
    func answerRule(_ outcome: Outcome, nowMicroseconds: Int64) -> Action {
        let state = facts.entry.state, attempts = state.attempts + 1
        switch outcome {
        case .done:
            return .complete
        case let .pushedBack(_, reason, _, _):
            return .unclaim(reason: reason)
        case let .conflict(fields):
            return .file(.conflict, FilingReason(fields + [Outcome.Field("attempts", "\(attempts)")]))
        case let .failed(fields):
            return .file(.failed, FilingReason(fields + [Outcome.Field("attempts", "\(attempts)")]))
        case let .retry(token, reason, retryAfter, takesOriginDown, details):
            // Out of attempts, the last answer is kept as a rejected one's is: status, ETag, body start.
            if let limit = facts.operation.maxAttempts, attempts >= limit {
                let gaveUp = "gave up after \(attempts) attempts (max_attempts); last error: \(reason)"
                return .file(.failed, FilingReason([Outcome.Field("reason", gaveUp)] + details
                    + [Outcome.Field("attempts", "\(attempts)"), Outcome.Field("last-error", token)]))
            }
            var next = state
            next.attempts = attempts
            next.lastError = token
            // Rounded up to the next whole second: never earlier than the backoff or Retry-After asked for.
            let delay = facts.backoff.delay(
                afterAttempts: attempts, retryAfter: retryAfter, random: facts.jitter ?? Double.random(in: 0...1))
            next.dueSeconds = (nowMicroseconds + delay * 1_000_000 + 999_999) / 1_000_000
            let kept = FilingReason([Outcome.Field("reason", reason)] + details
                + [Outcome.Field("attempts", "\(attempts)"), Outcome.Field("last-error", token)])
            return .deferral(next, reason: reason, takesOriginDown: takesOriginDown, kept: kept)
        }
    }
}
