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
    let transport: (any Transport)?
    let options: WorkerOptions
    let lock: SpoolLock
    let stopping = Atomic<Bool>(false)
    let state = Mutex(RunState())
    let planSeconds = Mutex(0.0)

    /// How long the last look at the queue took: a watcher paces itself by it, so that a stream of new files
    /// does not keep it listing a large queue instead of sending.
    public var lastPlanDuration: Double { planSeconds.withLock { $0 } }

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
        var nextDue: Int64?
        /// Files under plain names were seen: one may be a producer still writing (left for a later run),
        /// which changes no folder time when it finishes, so no idle hint may be written.
        var sawPlainNames = false
        /// Every id in `new/` and `cur/`, listed on first use: only `depends_on` needs it.
        let present = PresentIndex()
    }

    /// Where each queued id is, found by listing `new/` and `cur/` once per round, when first asked.
    final class PresentIndex: Sendable {
        let index = Mutex<[String: (folder: Spool.Folder, fileName: FileName)]?>(nil)

        /// Throws when a folder cannot be listed: a dependency must never look absent because of a fault.
        func lookup(_ id: String, in spool: Spool) throws(SpoolFault) -> (folder: Spool.Folder, fileName: FileName)? {
            try index.withLock { index throws(SpoolFault) in
                if index == nil {
                    var found: [String: (folder: Spool.Folder, fileName: FileName)] = [:]
                    for folder in [Spool.Folder.new, .cur] {
                        do {
                            try spool.directory(folder).forEachEntry { fileName, _ in
                                if let name = QueueName(fileName) { found[name.id] = (folder, fileName) }
                            }
                        } catch {
                            throw SpoolFault("list", "\(spool.path)/\(folder.rawValue)", error as? Errno ?? .invalidArgument)
                        }
                    }
                    index = found
                }
                return index![id]
            }
        }
    }

    /// A worker on `spool` sending through `transport`; without one it can only keep house and plan.
    public init(spool: Spool, transport: (any Transport)? = nil, options: WorkerOptions) {
        self.spool = spool
        self.transport = transport
        self.options = options
        self.lock = spool.lock
    }

    /// Asks the worker to stop claiming; requests in flight finish (or time out) first.
    public func requestStop() { stopping.store(true, ordering: .relaxed) }

    /// Whether a stop was requested, or the spool's storage failed so that going on would only fail again.
    public var isStopping: Bool { stopping.load(ordering: .relaxed) || storageFailed.load(ordering: .relaxed) }

    /// Set by a fault of the `storage` class: the run ends, every operation where it is.
    let storageFailed = Atomic<Bool>(false)
    /// Faults met since the last `takeFaults`.
    let faults = Mutex(FaultReport())

    /// Notes a fault of the spool (not of an operation): logged once per kind, kept for the exit status.
    func record(_ fault: SpoolFault) {
        let first = faults.withLock { $0.add(fault) }
        if first { log.warning(fault.description) } else { log.detail(fault.description) }
        if fault.kind.stopsRun { storageFailed.store(true, ordering: .relaxed) }
    }

    /// The faults met since the last call, and forgets them: what decides a run's exit status.
    public func takeFaults() -> FaultReport {
        faults.withLock { report in defer { report = FaultReport() }; return report }
    }

    var log: Log { options.log }

    /// Claims this worker could not move on (a full or failing disk): returned to `new/` at housekeeping,
    /// since recovery never takes a live worker's claims.
    let stranded = Mutex<[QueueEntry]>([])

    func strand(_ claimed: QueueEntry) {
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

    /// Whether anything is due now: known from file names alone, without opening any operation.
    ///
    /// A queue that was idle at the last look and has not changed since is not listed again (`IdleHint`).
    public func hasDueWork() -> Bool {
        let now = Timestamp.now()
        if !options.flush, let hint = IdleHint.read(spool), hint.stillHolds(spool, now: now) { return false }
        // Folder times before the listing: a change made after this reading shows as a different time later.
        let before = IdleHint.folderTimes(spool)
        let plan = makePlan()
        if plan.lanes.isEmpty, !options.flush, !plan.sawPlainNames, let before,
           Timestamp.nowMicroseconds() * 1000 - max(before.new, before.cur) > IdleHint.settleNanoseconds {
            IdleHint(newModified: before.new, curModified: before.cur, due: plan.nextDue ?? Int64.max).write(to: spool)
        }
        return !plan.lanes.isEmpty
    }

    /// Lists the queue under the lock and forms the lanes of this round.
    ///
    /// The first pass reads only file names, without allocating, to find each key's first operation and
    /// whether it is due; so a queue of thousands of waiting operations costs one directory listing. The
    /// second pass, only for keys with something due, collects their operations.
    func makePlan() -> Plan {
        let started = Timestamp.nowMicroseconds()
        defer { planSeconds.withLock { $0 = Double(Timestamp.nowMicroseconds() - started) / 1e6 } }
        struct Head {
            var order: Int64
            var due: Int64
            /// Another operation has the same order stamp: only sorting by id can tell which is first.
            var tied = false
        }
        var plan = Plan()
        var heads: [UInt64: Head] = [:]
        var held = Set<UInt64>()
        var queues: [UInt64: [QueueEntry]] = [:]
        let parked = state.withLock { $0.parkedKeys }
        let now = Timestamp.now()
        var listing = "\(spool.path)/new"
        func note(_ keyHash: UInt64, order: Int64, due: Int64) {
            guard let head = heads[keyHash] else {
                heads[keyHash] = Head(order: order, due: due)
                return
            }
            if order < head.order { heads[keyHash] = Head(order: order, due: due) }
            else if order == head.order { heads[keyHash]!.tied = true }
        }
        do {
            try lock.withLock { lockHeld in
                listing = "\(spool.path)/new"
                let new = spool.directory(.new)
                var others: [FileName] = [], tooLate: [FileName] = []
                try new.forEachRawEntry { raw, _ in
                    guard raw.first != UInt8(ascii: ".") else { return }
                    if let facts = NameFacts(raw), !facts.claimed {
                        if facts.due > facts.order / 1_000_000 + options.lifetime {
                            tooLate.append(FileName(bytes: Array(raw)))
                        } else {
                            note(facts.keyHash, order: facts.order, due: facts.due)
                        }
                    } else {
                        others.append(FileName(bytes: Array(raw)))
                    }
                }
                // Waiting would only end in expiry: say so now rather than in days.
                for fileName in tooLate {
                    guard let name = QueueName(fileName), let state = name.state else { continue }
                    let why = state.attempts == 0
                        ? "not_before is after the queue lifetime of \(options.lifetime) seconds: it would expire before its first attempt"
                        : "the next attempt would come after the queue lifetime of \(options.lifetime) seconds"
                    fail(QueueEntry(fileName: fileName, name: name), from: .new, reason: [("reason", why), ("attempts", "\(state.attempts)")])
                }
                plan.sawPlainNames = !others.isEmpty
                for fileName in others where !isStopping {
                    do throws(SpoolFault) {
                        if let entry = try spool.intake(fileName, maxSize: options.maxSize, log: log, lockHeld) {
                            note(entry.state.keyHash, order: entry.state.order, due: entry.state.due)
                        }
                    } catch {
                        record(error)
                    }
                }
                listing = "\(spool.path)/cur"
                try spool.directory(.cur).forEachRawEntry { raw, _ in
                    if let facts = NameFacts(raw) { held.insert(facts.keyHash) }
                }
                listing = "\(spool.path)/new"
                var dueKeys = Set<UInt64>()
                for (key, head) in heads where !held.contains(key) {
                    if parked.contains(key) {
                        // Not this run's any more, but a watcher must wake when it becomes due.
                        if head.due > now { plan.nextDue = min(plan.nextDue ?? head.due, head.due) }
                    } else if options.flush || head.due <= now || head.tied {
                        dueKeys.insert(key)
                    } else {
                        plan.nextDue = min(plan.nextDue ?? head.due, head.due)
                    }
                }
                guard !dueKeys.isEmpty else { return }
                var unreadable: [FileName] = []
                try new.forEachRawEntry { raw, _ in
                    guard let facts = NameFacts(raw), !facts.claimed, dueKeys.contains(facts.keyHash) else { return }
                    let fileName = FileName(bytes: Array(raw))
                    if let name = QueueName(fileName) {
                        queues[facts.keyHash, default: []].append(QueueEntry(fileName: fileName, name: name))
                    } else {
                        unreadable.append(fileName)
                    }
                }
                // The quick reading and the full one must agree; a name only one accepts must not sit
                // silently at the head of its key.
                for fileName in unreadable {
                    do throws(SpoolFault) {
                        try spool.reject(fileName, in: .new, id: OperationID.sanitized(fileName), .badName("the retry state in the name is malformed"), log: log)
                    } catch {
                        record(error)
                    }
                }
            }
        } catch {
            record(SpoolFault("list", listing, error as? Errno ?? .invalidArgument))
            return plan
        }
        for (_, var queue) in queues {
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

    /// Keeps one name of a file that a crash left with two, under the lock; the next round sends it.
    func resolveTwin(_ folder: Spool.Folder, _ fileName: FileName) {
        do throws(Errno) {
            _ = try lock.withLock { held throws(Errno) in try spool.resolveTwin(folder, fileName, log: log, held) }
        } catch {
            record(SpoolFault("remove the second name of", spool.displayPath(folder, fileName), error))
        }
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
                guard case let .rejected(rejection) = error else {
                    // Not the operation's fault: it stays, and so does the rest of its key.
                    if case let .fault(fault) = error { record(fault) }
                    if case .twin = error { resolveTwin(.new, entry.fileName) }
                    park(entry)
                    return
                }
                // Only a move this worker made lets the lane go on: if another worker took the file,
                // that worker now owns the rest of this key.
                let moved: Bool
                do { moved = try spool.reject(entry.fileName, in: .new, id: entry.id, rejection, attempts: entry.state.attempts, log: log) } catch {
                    record(error)
                    moved = false
                }
                guard moved else {
                    park(entry)
                    return
                }
                state.withLock { $0.summary.failed += 1 }
                continue
            }
            if let allowed = options.allowedOrigins, !allowed.contains(operation.origin) {
                guard fail(entry, from: .new, reason: [("reason", "origin \(operation.origin) is not allowed (spool-send --allow-origin / SPOOL_ALLOW_ORIGINS); nothing was sent")]) else {
                    park(entry)
                    return
                }
                continue
            }
            if state.withLock({ $0.blockedOrigins.contains(operation.origin) }) {
                park(entry)
                return
            }
            if let reason = expiry(of: operation, entry, now: now) {
                guard fail(entry, from: .new, reason: reason) else {
                    park(entry)
                    return
                }
                continue
            }
            switch dependencies(of: operation, entry, plan: plan) {
            case .ready: break
            case .waiting: return
            case let .failed(reason):
                guard fail(entry, from: .new, reason: [("reason", reason)]) else {
                    park(entry)
                    return
                }
                continue
            }
            if operation.coalesce, entry.state.attempts == 0, index + 1 < lane.count,
               let newer = try? spool.readOperation(.new, lane[index + 1].fileName, maxSize: options.maxSize)?.operation,
               newer.key == operation.key {
                guard coalesce(entry, into: lane[index + 1]) else {
                    park(entry)
                    return
                }
                continue
            }
            if entry.fileName.bytes.count + Claim(owner: .current, since: now).suffix.count > 255 {
                guard fail(entry, from: .new, reason: [("reason", "the file name is too long to be claimed (a name holds at most 255 bytes)")]) else {
                    park(entry)
                    return
                }
                continue
            }
            let claimed: QueueEntry?
            do throws(Errno) { claimed = try lock.withLock { held throws(Errno) in try spool.claim(entry, held) } } catch {
                record(SpoolFault("claim", spool.displayPath(.new, entry.fileName), error))
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
            guard let transport else { preconditionFailure("Worker.run needs a transport") }
            let result = await transport.send(request)
            outcome = Outcome.classify(method: operation.method, result: result, now: Timestamp.now())
        } catch {
            if case let .unreadable(path, errno) = error, [.resource, .permission, .storage].contains(errno.faultClass) {
                // The system, not the profile: nothing was sent, so no attempt is counted.
                record(SpoolFault("read the auth profile", path, errno))
                do throws(Errno) { try lock.withLock { held throws(Errno) in try spool.release(claimed, state: claimed.state, held) } } catch where error != .noSuchFileOrDirectory {
                    record(SpoolFault("return to new/", spool.displayPath(.cur, claimed.fileName), error))
                    strand(claimed)
                } catch {}
                park(claimed)
                return false
            }
            log.warning("\(claimed.id): \(error)")
            outcome = .retry(token: "auth", reason: error.description, retryAfter: nil, blocksOrigin: false)
        }
        let attempts = claimed.state.attempts + 1
        switch outcome {
        case .done:
            do { try spool.complete(claimed) } catch {
                record(SpoolFault("remove the delivered operation", spool.displayPath(.cur, claimed.fileName), error))
                strand(claimed)
            }
            log.detail("\(claimed.id): done")
            state.withLock {
                $0.summary.done += 1
                $0.completed.insert(claimed.id)
            }
            return true
        case let .conflict(fields):
            if file(claimed, to: .conflict, reason: fields.map { ($0.name, $0.value) } + [("attempts", "\(attempts)")]) {
                state.withLock { $0.summary.conflicts += 1 }
            } else {
                strand(claimed)
            }
            return true
        case let .failed(fields):
            if !fail(claimed, from: .cur, reason: fields.map { ($0.name, $0.value) } + [("attempts", "\(attempts)")]) { strand(claimed) }
            return true
        case let .retry(token, reason, retryAfter, blocksOrigin):
            if let limit = operation.maxAttempts, attempts >= limit {
                if !fail(claimed, from: .cur, reason: [("reason", "gave up after \(attempts) attempts (max_attempts); last error: \(reason)"), ("attempts", "\(attempts)")]) {
                    strand(claimed)
                }
                return true
            }
            var next = claimed.state
            next.attempts = attempts
            next.lastError = token
            // Rounded up to the next whole second: never earlier than the backoff or Retry-After asked for.
            let delay = options.backoff.delay(afterAttempts: attempts, retryAfter: retryAfter)
            next.due = (Timestamp.nowMicroseconds() + delay * 1_000_000 + 999_999) / 1_000_000
            do throws(Errno) { try lock.withLock { held throws(Errno) in try spool.release(claimed, state: next, held) } } catch where error != .noSuchFileOrDirectory {
                record(SpoolFault("return to new/", spool.displayPath(.cur, claimed.fileName), error))
                strand(claimed)
            } catch {
                // Moved by another worker (recovery of a claim it took for stale): it owns the operation now.
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
            let present: Bool
            do { present = try plan.present.lookup(dependency, in: spool) != nil } catch {
                record(error)
                return .waiting
            }
            if present, !state.withLock({ $0.completed.contains(dependency) }) {
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
            guard let (folder, fileName) = try? plan.present.lookup(current, in: spool),
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
    /// Returns whether this worker removed it.
    func coalesce(_ entry: QueueEntry, into newer: QueueEntry) -> Bool {
        do throws(Errno) {
            guard let claimed = try lock.withLock({ held throws(Errno) in try spool.claim(entry, held) }) else { return false }
            do { try spool.complete(claimed) } catch {
                strand(claimed)
                throw error
            }
            log.notice("coalesced \(entry.id) into newer \(newer.id) (same key, never attempted)")
            state.withLock { $0.summary.coalesced += 1 }
            return true
        } catch {
            record(SpoolFault("coalesce", spool.displayPath(.new, entry.fileName), error))
            return false
        }
    }

    /// Files an operation in `failed/`; returns whether this worker moved it.
    @discardableResult
    func fail(_ entry: QueueEntry, from folder: Spool.Folder, reason: [(String, String)]) -> Bool {
        guard file(entry, from: folder, to: .failed, reason: reason) else { return false }
        state.withLock { $0.summary.failed += 1 }
        return true
    }

    /// Moves an operation to `failed/` or `conflict/` with its reason; returns whether this worker moved it.
    @discardableResult
    func file(_ entry: QueueEntry, from folder: Spool.Folder = .cur, to destination: Spool.Folder, reason: [(String, String)]) -> Bool {
        var fields = reason
        if let last = entry.state.lastError, !fields.contains(where: { $0.0 == "last-error" }) { fields.append(("last-error", last)) }
        // Kept so that `spool-ctl retry` can put the operation back in its original place in the order.
        fields.append(("order", "\(entry.state.order)"))
        do {
            guard let filed = try spool.file(entry.fileName, from: folder, to: destination, id: entry.id, reason: FilingReason(fields)) else { return false }
            log.warning("\(entry.id) -> \(destination.rawValue)/\(filed): \(fields.first?.1 ?? "")")
            return true
        } catch {
            switch error {
            case let .notMoved(errno):
                record(SpoolFault("file in \(destination.rawValue)/", spool.displayPath(folder, entry.fileName), errno))
                return false
            case let .unsynced(filed, errno):
                log.warning("\(entry.id) -> \(destination.rawValue)/\(filed): \(fields.first?.1 ?? "")")
                record(SpoolFault("fsync", "\(spool.path)/\(destination.rawValue)", errno))
                return true
            }
        }
    }
}
