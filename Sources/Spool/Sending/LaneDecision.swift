/// What a lane does with its next operation, decided from facts alone, in the manner of swift-nio's state
/// machines: `Worker.process` gathers the facts (reading the document, looking up dependencies), calls
/// `decide`, and carries out the action it returns. Nothing here touches the spool.
public enum LaneDecision {
    /// What one `depends_on` id turned out to be, gathered by the worker in order.
    public enum Dependency: Equatable, Sendable {
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

    /// Everything the decision looks at. Dependencies and the next operation's key cost I/O, so they are
    /// asked for only when the decision gets that far.
    public struct Facts {
        /// The operation's name and retry state.
        public var entry: QueueEntry
        /// Its document.
        public var operation: Operation
        /// Seconds since the epoch.
        public var now: Int64
        /// Options that bear on the decision.
        public var lifetime: Int64
        public var allowedOrigins: Set<String>?
        /// The operation's origin failed at the transport level earlier in this run.
        public var originBlocked: Bool
        /// Its dependencies, up to the first that is not done.
        public var dependencies: () -> [Dependency]
        /// The lane's next operation has the same key (a coalescing write may give way to it).
        public var nextHasSameKey: () -> Bool
        /// Bytes a claim adds to the file name.
        public var claimSuffixLength: Int

        /// The facts of one decision.
        public init(entry: QueueEntry, operation: Operation, now: Int64, lifetime: Int64, allowedOrigins: Set<String>? = nil,
                    originBlocked: Bool = false, dependencies: @escaping () -> [Dependency] = { [] },
                    nextHasSameKey: @escaping () -> Bool = { false }, claimSuffixLength: Int = 40) {
            self.entry = entry
            self.operation = operation
            self.now = now
            self.lifetime = lifetime
            self.allowedOrigins = allowedOrigins
            self.originBlocked = originBlocked
            self.dependencies = dependencies
            self.nextHasSameKey = nextHasSameKey
            self.claimSuffixLength = claimSuffixLength
        }
    }

    /// Why a lane stops for the rest of the run.
    public enum ParkReason: Equatable, Sendable {
        case originBlocked
        case claimLost
    }

    /// What the worker does next.
    public enum Action: Equatable, Sendable {
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
    public static func decide(_ facts: Facts) -> Action {
        let operation = facts.operation, entry = facts.entry
        // --allow-origin limits where requests go; the handler directory is the list of what may run.
        if let allowed = facts.allowedOrigins, operation.handler == nil, !allowed.contains(operation.origin) {
            return .fail(FilingReason([("reason", "origin \(operation.origin) is not allowed (spool-send --allow-origin / SPOOL_ALLOW_ORIGINS); nothing was sent")]))
        }
        if facts.originBlocked { return .park(.originBlocked) }
        if let reason = expiry(facts) { return .fail(reason) }
        for dependency in facts.dependencies() {
            switch dependency {
            case .done: continue
            case .itself: return .fail(FilingReason([("reason", "depends on itself (depends_on names its own id)")]))
            case let .filed(id, folder): return .fail(FilingReason([("reason", "depends on \(id), which is in \(folder.rawValue)/")]))
            case let .cycle(id): return .fail(FilingReason([("reason", "depends_on forms a cycle through \(id)")]))
            case .queued: return .wait
            }
        }
        if operation.coalesce, entry.state.attempts == 0, facts.nextHasSameKey() { return .coalesce }
        if entry.fileName.bytes.count + facts.claimSuffixLength > 255 {
            return .fail(FilingReason([("reason", "the file name is too long to be claimed (a name holds at most 255 bytes)")]))
        }
        return .claim
    }

    /// What follows a claim: send when it was won, else another worker owns the rest of the key.
    public static func afterClaim(won: Bool) -> Action {
        won ? .claim : .park(.claimLost)
    }

    /// The reason an operation is past its time, or nil.
    static func expiry(_ facts: Facts) -> FilingReason? {
        let state = facts.entry.state
        var why: String?
        if let expires = facts.operation.expiresAt, expires <= facts.now {
            why = "expired at \(Timestamp.formatRFC3339(expires)) (expires_at) before it could be delivered"
        } else if facts.now - state.orderMicroseconds / 1_000_000 > facts.lifetime {
            why = "not delivered within the queue lifetime of \(facts.lifetime) seconds (enqueued \(Timestamp.formatRFC3339(state.orderMicroseconds / 1_000_000)))"
        }
        guard let why else { return nil }
        var reason = [("reason", why), ("attempts", "\(state.attempts)")]
        if let last = state.lastError { reason.append(("last-error", last)) }
        return FilingReason(reason)
    }
}
