import Glibc
import SpoolConfiguration
import SpoolDocument
import SpoolHandlers
import SpoolNames
import SpoolQueue
import SpoolSystem
import SpoolTransport

/// Carrying out a lane: reading each operation, living its life (`Worker+Operation.swift`), and doing what the
/// lane must when it ends.
extension Worker {
    /// Works through one key's operations in order, stopping at the first that must wait.
    package func process(_ lane: [QueueEntry], plan: Plan) async {
        var asked = LaneReadAhead(lane: lane, ahead: plan.readAhead)
        defer { asked.forgetTheRest() }
        for (index, entry) in lane.enumerated() {
            asked.current = index
            let nowSeconds = Timestamp.nowSeconds()
            if isStopping || waitsByName(entry, nowSeconds: nowSeconds) { return }
            let operation: Operation, source: FileIdentity
            switch read(entry, ahead: plan.readAhead) {
            case let .operation(read, file): (operation, source) = (read, file)
            case .filed: continue
            case .stop: return
            }
            let next = index + 1 < lane.count ? lane[index + 1] : nil
            let read = ReadOperation(entry: entry, operation: operation, source: source, next: next)
            // Only once this one is claimed and sent is the rest of the key likely to be sent in this run.
            let finish = await live(read, plan: plan, nowSeconds: nowSeconds) { asked.claimed(index) }
            switch finish {
            case .goOn: continue
            case .wait, .stop: return
            case let .park(why):
                if why == .originDown { countWaiting(operation.origin) }
                return park(entry)
            case .leave: return leave(entry, share(operation), operation.origin)
            }
        }
    }

    /// Whether `entry` waits without being read: on hold, where what follows it in the key waits with it (even
    /// with --flush); not yet due; or to an origin that failed in this run, as its name says (`h=`), held back
    /// unread so that a run over a down origin's backlog reads one document, not all of them (two origins of
    /// one hash, 1 in 2^32, would hold the other's back too, in each run while this one is down).
    package func waitsByName(_ entry: QueueEntry, nowSeconds: Int64) -> Bool {
        if entry.state.held || !options.flush && entry.state.dueSeconds > nowSeconds { return true }
        guard entry.state.originHash != 0, let origin = downOrigin(hash: entry.state.originHash),
              droppedByOwner(entry)
        else { return false }
        countWaiting(origin)
        park(entry)
        return true
    }

    /// The operation the claimed file holds: `operation`, read before the claim from `file`, unless the file
    /// changed meanwhile (another file under the name: a `merge` folded in by an exchange of names, or a
    /// `spool-ctl retry` that rewrote it), when the claimed file is read again, so that the merge is sent, not
    /// lost. The read may be old: a lane waits for room between reading and claiming, and a read made ahead
    /// waits for its lane. Nil when that reading fails (a fault is recorded; a rejected document is filed by
    /// the next run's reading), or when it is another request than the one decided on (another origin,
    /// handler, key, producer or auth profile: only a full reading may decide on it, in a later run).
    package func asClaimed(_ claimed: QueueEntry, _ operation: Operation, file: FileIdentity) -> Operation? {
        // A status that cannot be had proves nothing: the file is read again, as when it changed.
        if let status = try? spool.directory(.cur).status(of: claimed.fileName), status.identity == file {
            return operation
        }
        log.detail("\(claimed.id): changed since it was read (a merge or a rewrite); sending what it holds now")
        let now: Operation?
        do throws(ReadError) { now = try readDocument(.cur, claimed.fileName)?.operation } catch {
            if case let .fault(fault) = error { record(fault) }
            return nil
        }
        guard let now, now.origin == operation.origin, now.handler == operation.handler, now.key == operation.key,
              now.producer == operation.producer, now.auth == operation.auth
        else {
            log.notice("\(claimed.id): became another request since it was read; left for the next run to decide")
            return nil
        }
        return now
    }

    /// The share of its origin `operation` draws on (`OriginRecord.share`): its producer's, in a spool many
    /// users drop into; else the origin's own.
    package func share(_ operation: Operation) -> String {
        guard spool.users.takesProducerDrops else { return operation.origin }
        return OriginRecord.share(operation.origin, producer: spool.users.keyScope(of: operation.producer))
    }

    /// Waits for room at `share` of `origin` and returns the ticket; nil when the lane must leave the operation
    /// where it is and stop: a stop was asked meanwhile, the origin is down (counted), or the share paused
    /// (noted for the run).
    package func room(at share: String, _ origin: String, for id: String) async -> Int? {
        switch await limits.acquire(share) {
        case let .go(granted):
            // The wait for room may have been long: a stop asked meanwhile comes first, and so does a
            // transport failure of the request this lane waited behind (the origin's probe).
            let down = state.withLock { !$0.downOrigins.isEmpty && $0.downOrigins[origin] != nil }
            if down { countWaiting(origin) }
            if isStopping || down {
                limits.finish(share, ticket: granted, nil)
                return nil
            }
            return granted
        case let .paused(until):
            log.detail("\(id): \(share) asked for a pause until \(Timestamp.formatRFC3339(Int64(until)))")
            let resume = Int64(
                min(until, Timestamp.nowFractionalSeconds() + RateLimitHeaders.longestPauseSeconds).rounded(.up))
            state.withLock {
                $0.resumeAt = min($0.resumeAt ?? resume, resume)
                $0.pausedOrigins[share] = until
            }
            countWaiting(share)
            return nil
        }
    }

    /// What reading a lane's operation gave.
    package enum ReadStep {
        /// Read from `file`, by the lane itself or ahead of it.
        case operation(Operation, file: FileIdentity)
        /// It could never be sent and this worker filed it: the lane goes on.
        case filed
        /// The lane stops (gone, a fault, a second name to resolve, or filed by another worker).
        case stop
    }

    /// Reads an operation under this run's limits (`--max-size`, `--max-payload`).
    package func readDocument(_ folder: Spool.Folder, _ fileName: FileName) throws(ReadError)
        -> (operation: Operation, modified: Int64)?
    {
        try spool.readOperation(folder, fileName, maxSize: options.maxSize, maxPayload: maxPayload)
    }

    /// Reads a lane's operation; files it when its content is bad, parks its key when the spool is at fault.
    package func read(_ entry: QueueEntry, ahead: ReadAhead? = nil) -> ReadStep {
        do throws(ReadError) {
            var read = ahead?.take(entry)
            if read == nil {
                read = try spool.readOperationAndStatus(
                    .new, entry.fileName, maxSize: options.maxSize, maxPayload: maxPayload
                ).map { ($0.operation, $0.status.identity) }
            }
            guard let read else {
                park(entry)
                return .stop
            }
            // A name's order must be its document's, as its producer's: in a shared spool a producer could
            // otherwise write a name into another producer's lane.
            let scope = spool.users.keyScope(of: read.operation.producer)
            guard RetryState.keyHash(read.operation.key, scope: scope) == entry.state.keyHash else {
                throw .rejected(.foreignOrder(producer: read.operation.producer ?? 0))
            }
            return .operation(read.operation, file: read.file)
        } catch {
            guard case let .rejected(rejection) = error else {
                // Not the operation's fault: it stays, and so does the rest of its key.
                if case let .fault(fault) = error { record(fault) }
                if case .twin = error { resolveTwin(.new, entry.fileName) }
                park(entry)
                return .stop
            }
            // Only a move this worker made lets the lane go on: if another worker took the file,
            // that worker now owns the rest of this key.
            let filed = spool.file(
                rejected: entry.fileName, in: .new, id: entry.id, rejection, attempts: entry.state.attempts, log: log)
            if let fault = filed.fault { record(fault) }
            guard filed.wasMoved else {
                park(entry)
                return .stop
            }
            state.withLock { $0.summary.failed += 1 }
            return .filed
        }
    }

    /// The origin that failed in this run under the hash names carry, if any.
    package func downOrigin(hash: UInt32) -> String? {
        state.withLock { $0.downOriginHashes.isEmpty ? nil : $0.downOriginHashes[hash] }
    }

    /// Whether root or the spool's owner dropped `entry` (a status, not a read): only their names are taken at
    /// their word. A producer of a shared spool could write another's key and a stopped origin's hash into a
    /// name to hold that key back; such a name is read, and filed as not its document's order.
    package func droppedByOwner(_ entry: QueueEntry) -> Bool {
        // A status that fails says nothing: the read that follows meets the fault and reports it.
        guard let status = try? spool.directory(.new).status(of: entry.fileName) else { return false }
        return !spool.users.isProducer(status.owner)
    }

    /// One more operation waits on its stopped or paused origin, for the run's report.
    package func countWaiting(_ origin: String) {
        state.withLock { $0.waitingOnOrigin[origin, default: 0] += 1 }
    }

    /// Sets `entry`'s key aside for the rest of this run: later rounds form no lane for it.
    package func park(_ entry: QueueEntry) {
        _ = state.withLock { $0.parkedKeys.insert(entry.laneKey) }
    }

    /// Leaves `entry`, which its origin's pause (or a stop, or its origin down) holds back. Held by the pause
    /// of its origin's own share, its key is not parked: the plan leaves it out by the origin hash in its name
    /// while the pause lasts and takes it in the first round after, so that a `Retry-After` of seconds does
    /// not wait for the end of a long run. A producer's share is parked (names do not say whose they are), and
    /// so is the key of an origin down, for the run.
    package func leave(_ entry: QueueEntry, _ share: String, _ origin: String) {
        let paused = state.withLock { $0.downOrigins[origin] == nil && $0.pausedOrigins[share] != nil }
        if !paused || share.contains(" ") || isStopping { park(entry) }
    }

    /// Notes that `origin` failed at the transport level (`token`): down for the run, and from now
    /// until its next probe (a later run's). Only the first failure of the run counts toward the probe's
    /// backoff: the lanes that sent beside it tell nothing new.
    package func unreachable(_ origin: String, _ token: String) {
        let newly = state.withLock { run in
            defer { run.markDown(origin, token: token) }
            return run.downOrigins[origin] == nil
        }
        guard newly else { return }
        let since = limits.unreachable(origin, nowSeconds: Timestamp.nowSeconds())
        state.withLock { run in
            if run.wentUnreachable[origin] == nil { run.wentUnreachable[origin] = (token, since) }
        }
    }

    /// Keeps one name of a file that a crash left with two, under the lock; the next round sends it.
    package func resolveTwin(_ folder: Spool.Folder, _ fileName: FileName) {
        if let fault = spool.withLock({ transaction in transaction.resolveTwin(folder, fileName, log: log) }).fault {
            record(fault)
        }
    }

    /// Removes a never-attempted coalescing operation that a newer one with the same key replaces.
    /// Returns whether this worker removed it.
    package func coalesce(_ entry: QueueEntry, into newer: QueueEntry) -> Bool {
        let claimed: QueueEntry
        switch spool.withLock({ transaction in transaction.claim(entry) }) {
        case let .moved(made): claimed = made
        case .gone: return false
        case let .fault(fault):
            record(fault)
            return false
        }
        // Removed in place, as a delivered file is; gone meanwhile means another worker took the claim back.
        guard remover.removeInPlace(claimed) else { return false }
        log.notice("coalesced \(entry.id) into newer \(newer.id) (same key, never attempted)",
                   LogFields(id: entry.id, outcome: "coalesced"))
        state.withLock { $0.summary.coalesced += 1 }
        return true
    }
}
