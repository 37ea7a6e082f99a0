import SpoolConfiguration
import SpoolDocument
import SpoolHandlers
import SpoolNames
import SpoolQueue
import SpoolSystem
import SpoolTransport

/// What a lane does with its next operation, decided from facts alone, in the manner of swift-nio's state
/// machines: `Worker.process` gathers the facts (reading the document, looking up dependencies), calls
/// `decide`, and carries out the action it returns. Nothing here touches the spool.
package enum LaneDecision {
    /// What one `depends_on` id turned out to be, gathered by the worker in order.
    package enum Dependency: Equatable, Sendable {
        /// Done in this run, or found nowhere (done before).
        case done
        /// Filed in `failed/` or `conflict/`: this one can never be right.
        case filed(id: String, folder: Spool.Folder)
        /// Still queued: wait for it.
        case queued(id: String)
        /// Still queued, and its own dependencies lead back here.
        case cycle(through: String)
        /// The operation names its own id.
        case itself
    }

    /// Everything the decision looks at. Dependencies and the next operation's key cost I/O, so they start
    /// unknown (nil) and the decision asks for them (`Action.look`) only when it gets that far.
    package struct Facts {
        /// The operation's name and retry state.
        package var entry: QueueEntry
        /// Its document.
        package var operation: Operation
        /// Seconds since the epoch.
        package var nowSeconds: Int64
        /// Options that bear on the decision.
        package var lifetimeSeconds: Int64
        /// The origins requests may go to (`--allow-origin`); nil allows every one. Handler jobs are exempt.
        package var allowedOrigins: Set<String>?
        /// What the operation's producer may name, when the producer policy governs them (nil: it does not).
        package var producerRights: ProducerPolicy.Rights?
        /// The policy's file, for the reason; nil when no file is named (the default policy).
        package var producerPolicyPath: String?
        /// The operation's origin failed at the transport level earlier in this run.
        package var originBlocked: Bool
        /// Its dependencies, up to the first that is not done; nil until looked up.
        package var dependencies: [Dependency]?
        /// The lane's next operation has the same key (a coalescing write may give way to it); nil until
        /// looked up, false when there is no next.
        package var nextHasSameKey: Bool?
        /// Bytes a claim adds to the file name.
        package var claimSuffixLength: Int

        /// The facts of one decision.
        package init(
            entry: QueueEntry, operation: Operation, nowSeconds: Int64, lifetimeSeconds: Int64,
            allowedOrigins: Set<String>? = nil, producerRights: ProducerPolicy.Rights? = nil,
            producerPolicyPath: String? = nil, originBlocked: Bool = false, dependencies: [Dependency]? = nil,
            nextHasSameKey: Bool? = nil, claimSuffixLength: Int = 40
        ) {
            self.entry = entry
            self.operation = operation
            self.nowSeconds = nowSeconds
            self.lifetimeSeconds = lifetimeSeconds
            self.allowedOrigins = allowedOrigins
            self.producerRights = producerRights
            self.producerPolicyPath = producerPolicyPath
            self.originBlocked = originBlocked
            self.dependencies = dependencies
            self.nextHasSameKey = nextHasSameKey
            self.claimSuffixLength = claimSuffixLength
        }
    }

    /// Why a lane stops for the rest of the run.
    package enum ParkReason: Equatable, Sendable {
        case originBlocked
        case claimLost
    }

    /// A fact that costs I/O, for the worker to look up before it asks again.
    package enum Lookup: Equatable, Sendable {
        /// Where each `depends_on` id is.
        case dependencies
        /// The key of the lane's next operation.
        case nextKey
    }

    /// What the worker does next.
    package enum Action: Equatable, Sendable {
        /// Look this up, set it in the facts and decide again.
        case look(Lookup)
        /// Claim it and send it.
        case claim
        /// Stop the lane for now: a dependency is still queued.
        case wait
        /// Stop the lane for the rest of this run.
        case park(ParkReason)
        /// File it in `failed/` with this reason; the lane goes on.
        case fail(FilingReason)
        /// Remove it: the lane's next operation replaces it (same key, never attempted).
        case coalesce
    }

    /// The action for the lane's next operation.
    package static func decide(_ facts: Facts) -> Action {
        let operation = facts.operation, entry = facts.entry
        // --allow-origin limits where requests go; the handler directory is the list of what may run.
        if let allowed = facts.allowedOrigins, operation.handler == nil, !allowed.contains(operation.origin) {
            return .fail(
                FilingReason([
                    (
                        "reason",
                        "origin \(operation.origin) is not allowed (spool-send --allow-origin / SPOOL_ALLOW_ORIGINS); "
                            + "nothing was sent"
                    )
                ]))
        }
        // In a shared spool, a producer names only the origins, profiles and handlers the policy gives them.
        if let rights = facts.producerRights,
           let why = rights.refusal(operation, policyPath: facts.producerPolicyPath)
        {
            return .fail(FilingReason([("reason", why), ("error", "forbidden")]))
        }
        if facts.originBlocked { return .park(.originBlocked) }
        if let reason = expiry(facts) { return .fail(reason) }
        if !operation.dependsOn.isEmpty, facts.dependencies == nil { return .look(.dependencies) }
        for dependency in facts.dependencies ?? [] {
            switch dependency {
            case .done: continue
            case .itself: return .fail(FilingReason([("reason", "depends on itself (depends_on names its own id)")]))
            case let .filed(id, folder):
                return .fail(FilingReason([("reason", "depends on \(id), which is in \(folder.rawValue)/")]))
            case let .cycle(id): return .fail(FilingReason([("reason", "depends_on forms a cycle through \(id)")]))
            case .queued: return .wait
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

    /// What follows a claim: send when it was won, else another worker owns the rest of the key.
    package static func afterClaim(won: Bool) -> Action {
        won ? .claim : .park(.claimLost)
    }

    /// The reason an operation is past its time, or nil.
    package static func expiry(_ facts: Facts) -> FilingReason? {
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
}
