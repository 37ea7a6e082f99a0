import Glibc
import Synchronization

/// The sender: claims due operations in order, sends them through a transport, and moves each by its outcome.
///
/// A run works in rounds. Each round lists `new/` and `cur/` under the spool lock and forms one lane per
/// ordering key: that key's waiting operations in enqueue order, unless another worker holds one of them
/// in `cur/` or its first one is not due yet. Lanes run in parallel up to the concurrency; inside a lane
/// operations go strictly one after another, and a lane stops at the first operation that has to wait, so a
/// later write never overtakes an earlier one. Rounds repeat while they send anything, which picks up
/// operations that arrive during the run.
public final class Worker: Sendable {
    let spool: Spool
    let transport: any Transport
    let options: WorkerOptions
    let lock: SpoolLock
    let stopping = Atomic<Bool>(false)
    let state = Mutex(RunState())

    struct RunState {
        var summary = RunSummary()
        /// Origins that failed at the transport level: nothing more is sent to them this run.
        var blockedOrigins: Set<String> = []
        /// Keys that must wait for the rest of this run (deferred, lost a claim race, origin blocked).
        var parkedKeys: Set<UInt64> = []
        /// Ids done in this run, for `depends_on`.
        var completed: Set<String> = []
    }

    struct Plan {
        var lanes: [[QueueEntry]] = []
        /// Every id in `new/` and `cur/` with its folder and file name, for `depends_on`.
        var present: [String: (folder: Spool.Folder, fileName: FileName)] = [:]
        var nextDue: Int64?
    }

    /// A worker on `spool` sending through `transport`.
    public init(spool: Spool, transport: any Transport, options: WorkerOptions) {
        self.spool = spool
        self.transport = transport
        self.options = options
        self.lock = SpoolLock(spool.root)
    }

    /// Asks the worker to stop claiming; requests in flight finish (or time out) first.
    public func requestStop() { stopping.store(true, ordering: .relaxed) }

    /// Whether a stop was requested.
    public var isStopping: Bool { stopping.load(ordering: .relaxed) }

    var log: Log { options.log }

    /// Returns dead workers' claims to `new/` and removes abandoned files from `tmp/`.
    public func housekeeping() {
        do {
            _ = try lock.withLock { try spool.recoverStaleClaims(lease: options.lease, log: log) }
        } catch {
            log.warning("cannot recover claims in \(spool.path)/cur: \(error)")
        }
        do { try spool.cleanTemporaryFiles(log: log) } catch {
            log.warning("cannot clean \(spool.path)/tmp: \(error)")
        }
    }

    /// Sends everything that is due, round after round, until a round sends nothing.
    public func run() async -> RunSummary {
        state.withLock { $0 = RunState() }
        var nextDue: Int64?
        while !isStopping {
            let plan = makePlan()
            nextDue = plan.nextDue
            if plan.lanes.isEmpty { break }
            let before = state.withLock { $0.summary.attempts + $0.summary.failed + $0.summary.conflicts + $0.summary.coalesced + $0.summary.done }
            await withTaskGroup(of: Void.self) { group in
                var lanes = plan.lanes.makeIterator()
                for _ in 0..<max(1, options.concurrency) {
                    guard let lane = lanes.next() else { break }
                    group.addTask { await self.process(lane, plan: plan) }
                }
                while await group.next() != nil {
                    if !isStopping, let lane = lanes.next() {
                        group.addTask { await self.process(lane, plan: plan) }
                    }
                }
            }
            let after = state.withLock { $0.summary.attempts + $0.summary.failed + $0.summary.conflicts + $0.summary.coalesced + $0.summary.done }
            if after == before { break }
        }
        return state.withLock { run in
            var summary = run.summary
            summary.nextDue = nextDue
            return summary
        }
    }

    /// Lists the queue under the lock and forms the lanes of this round.
    func makePlan() -> Plan {
        var plan = Plan()
        var queues: [UInt64: [QueueEntry]] = [:]
        var held = Set<UInt64>()
        do {
            try lock.withLock {
                try spool.scanNew(maxSize: options.maxSize, log: log) { entry in
                    queues[entry.state.keyHash, default: []].append(entry)
                    plan.present[entry.id] = (.new, entry.fileName)
                }
                try spool.forEachClaim { entry in
                    held.insert(entry.state.keyHash)
                    plan.present[entry.id] = (.cur, entry.fileName)
                }
            }
        } catch {
            log.warning("cannot list \(spool.path): \(error)")
            return plan
        }
        let parked = state.withLock { $0.parkedKeys }
        let now = Timestamp.now()
        for (key, var queue) in queues where !held.contains(key) && !parked.contains(key) {
            queue.sort(by: QueueEntry.precedes)
            let due = queue[0].state.due
            if !options.flush, due > now {
                plan.nextDue = min(plan.nextDue ?? due, due)
                continue
            }
            plan.lanes.append(queue)
        }
        plan.lanes.sort { QueueEntry.precedes($0[0], $1[0]) }
        return plan
    }

    func park(_ entry: QueueEntry) {
        _ = state.withLock { $0.parkedKeys.insert(entry.state.keyHash) }
    }

    /// Works through one key's operations in order, stopping at the first that must wait.
    func process(_ lane: [QueueEntry], plan: Plan) async {
        for (index, entry) in lane.enumerated() {
            if isStopping { return }
            let now = Timestamp.now()
            if !options.flush, entry.state.due > now { return }
            let operation: Operation
            do {
                guard let read = try spool.readOperation(.new, entry.fileName, maxSize: options.maxSize) else {
                    park(entry)
                    return
                }
                operation = read.operation
            } catch {
                spool.reject(entry.fileName, in: .new, id: entry.id, error, attempts: entry.state.attempts, log: log)
                state.withLock { $0.summary.failed += 1 }
                continue
            }
            if state.withLock({ $0.blockedOrigins.contains(operation.origin) }) {
                park(entry)
                return
            }
            if let reason = expiry(of: operation, entry, now: now) {
                fail(entry, from: .new, reason: reason)
                continue
            }
            switch dependencies(of: operation, entry, plan: plan) {
            case .ready: break
            case .waiting: return
            case let .failed(reason):
                fail(entry, from: .new, reason: [("reason", reason)])
                continue
            }
            if operation.coalesce, entry.state.attempts == 0, index + 1 < lane.count,
               let newer = try? spool.readOperation(.new, lane[index + 1].fileName, maxSize: options.maxSize)?.operation,
               newer.key == operation.key {
                coalesce(entry, into: lane[index + 1])
                continue
            }
            let claimed: QueueEntry?
            do { claimed = try lock.withLock { try spool.claim(entry) } } catch {
                log.warning("cannot claim \(spool.displayPath(.new, entry.fileName)): \(error)")
                claimed = nil
            }
            guard let claimed else {
                // Another worker took it: that worker now owns the rest of this key.
                park(entry)
                return
            }
            guard await attempt(claimed, operation) else { return }
        }
    }

    /// Sends one claimed operation and acts on the outcome. Returns whether the lane may go on.
    func attempt(_ claimed: QueueEntry, _ operation: Operation) async -> Bool {
        var outcome: Outcome
        do {
            let request = HTTPRequest(operation: operation, id: claimed.id, userAgent: options.userAgent, credentials: try credentials(for: operation))
            state.withLock { $0.summary.attempts += 1 }
            log.detail("sending \(claimed.id): \(operation.method) \(operation.url)")
            let result = await transport.send(request)
            outcome = Outcome.classify(method: operation.method, result: result, now: Timestamp.now())
        } catch {
            log.warning("\(claimed.id): \(error)")
            outcome = .retry(token: "auth", reason: error.description, retryAfter: nil, blocksOrigin: false)
        }
        let attempts = claimed.state.attempts + 1
        switch outcome {
        case .done:
            do { try spool.complete(claimed) } catch { log.warning("cannot remove \(spool.displayPath(.cur, claimed.fileName)): \(error)") }
            log.detail("\(claimed.id): done")
            state.withLock {
                $0.summary.done += 1
                $0.completed.insert(claimed.id)
            }
            return true
        case let .conflict(fields):
            file(claimed, to: .conflict, reason: fields.map { ($0.name, $0.value) } + [("attempts", "\(attempts)")])
            state.withLock { $0.summary.conflicts += 1 }
            return true
        case let .failed(fields):
            fail(claimed, from: .cur, reason: fields.map { ($0.name, $0.value) } + [("attempts", "\(attempts)")])
            return true
        case let .retry(token, reason, retryAfter, blocksOrigin):
            if let limit = operation.maxAttempts, attempts >= limit {
                fail(claimed, from: .cur, reason: [("reason", "gave up after \(attempts) attempts (max_attempts); last error: \(reason)"), ("attempts", "\(attempts)")])
                return true
            }
            var next = claimed.state
            next.attempts = attempts
            next.lastError = token
            // Rounded up to the next whole second: never earlier than the backoff or Retry-After asked for.
            let delay = options.backoff.delay(afterAttempts: attempts, retryAfter: retryAfter)
            next.due = (Timestamp.nowMicroseconds() + delay * 1_000_000 + 999_999) / 1_000_000
            do { try lock.withLock { try spool.release(claimed, state: next) } } catch {
                log.warning("cannot return \(spool.displayPath(.cur, claimed.fileName)) to new/: \(error); it will be recovered after this run")
            }
            log.detail("\(claimed.id): \(reason); attempt \(attempts), next at \(Timestamp.formatRFC3339(next.due))")
            state.withLock {
                $0.summary.deferred += 1
                $0.parkedKeys.insert(claimed.state.keyHash)
                if blocksOrigin { $0.blockedOrigins.insert(operation.origin) }
            }
            return false
        }
    }

    func credentials(for operation: Operation) throws(CredentialError) -> [(name: String, value: String)] {
        guard let profile = operation.auth else { return [] }
        guard let store = options.credentials else { throw .noDirectory(profile: profile) }
        return try store.headers(profile: profile)
    }

    /// The reason an operation is past its time, or nil.
    func expiry(of operation: Operation, _ entry: QueueEntry, now: Int64) -> [(String, String)]? {
        var why: String?
        if let expires = operation.expiresAt, expires <= now {
            why = "expired at \(Timestamp.formatRFC3339(expires)) (expires_at) before it could be delivered"
        } else if now - entry.state.order / 1_000_000 > options.lifetime {
            why = "not delivered within the queue lifetime of \(options.lifetime) seconds (enqueued \(Timestamp.formatRFC3339(entry.state.order / 1_000_000)))"
        }
        guard let why else { return nil }
        var reason = [("reason", why), ("attempts", "\(entry.state.attempts)")]
        if let last = entry.state.lastError { reason.append(("last-error", last)) }
        return reason
    }

    enum DependencyState {
        case ready, waiting
        case failed(String)
    }

    /// Whether every operation this one depends on is done.
    func dependencies(of operation: Operation, _ entry: QueueEntry, plan: Plan) -> DependencyState {
        for dependency in operation.dependsOn {
            if dependency == entry.id { return .failed("depends on itself (depends_on names its own id)") }
            for folder in [Spool.Folder.failed, .conflict] where (try? spool.directory(folder).status(of: FileName(dependency))) != nil {
                return .failed("depends on \(dependency), which is in \(folder.rawValue)/")
            }
            if plan.present[dependency] != nil, !state.withLock({ $0.completed.contains(dependency) }) {
                if dependsTransitively(on: entry.id, from: dependency, plan: plan) {
                    return .failed("depends_on forms a cycle through \(dependency)")
                }
                return .waiting
            }
        }
        return .ready
    }

    /// Whether `start`'s dependencies lead back to `id` (bounded, reading only the documents on the path).
    func dependsTransitively(on id: String, from start: String, plan: Plan) -> Bool {
        var queue = [start], seen: Set<String> = [start]
        while let current = queue.popLast(), seen.count < 256 {
            guard let (folder, fileName) = plan.present[current],
                  let next = try? spool.readOperation(folder, fileName, maxSize: options.maxSize)?.operation
            else { continue }
            for dependency in next.dependsOn {
                if dependency == id { return true }
                if seen.insert(dependency).inserted { queue.append(dependency) }
            }
        }
        return false
    }

    /// Removes a never-attempted coalescing operation that a newer one with the same key replaces.
    func coalesce(_ entry: QueueEntry, into newer: QueueEntry) {
        do {
            guard let claimed = try lock.withLock({ try spool.claim(entry) }) else { return }
            try spool.complete(claimed)
            log.notice("coalesced \(entry.id) into newer \(newer.id) (same key, never attempted)")
            state.withLock { $0.summary.coalesced += 1 }
        } catch {
            log.warning("cannot coalesce \(entry.id): \(error)")
        }
    }

    func fail(_ entry: QueueEntry, from folder: Spool.Folder, reason: [(String, String)]) {
        file(entry, from: folder, to: .failed, reason: reason)
        state.withLock { $0.summary.failed += 1 }
    }

    func file(_ entry: QueueEntry, from folder: Spool.Folder = .cur, to destination: Spool.Folder, reason: [(String, String)]) {
        var fields = reason
        if let last = entry.state.lastError, !fields.contains(where: { $0.0 == "last-error" }) { fields.append(("last-error", last)) }
        do {
            if let filed = try spool.file(entry.fileName, from: folder, to: destination, id: entry.id, reason: fields) {
                log.warning("\(entry.id) -> \(destination.rawValue)/\(filed): \(fields.first?.1 ?? "")")
            }
        } catch {
            log.warning("cannot move \(spool.displayPath(folder, entry.fileName)) to \(destination.rawValue)/: \(error)")
        }
    }
}
