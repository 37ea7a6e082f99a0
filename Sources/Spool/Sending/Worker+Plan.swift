import Glibc
import SpoolConfiguration
import SpoolDocument
import SpoolHandlers
import SpoolNames
import SpoolQueue
import SpoolSystem
import SpoolTransport

/// Planning a round: which keys have something due, and each key's lane in order.
extension Worker {
    /// What one round found: the lanes to send now, and when to look again.
    package struct Plan {
        /// One lane per due key, in enqueue order inside; lanes by priority, then by their first operation's order.
        package var lanes: [[QueueEntry]] = []
        /// When the earliest operation left waiting for a time becomes due (seconds since the epoch); nil if none.
        package var nextDue: Int64?
        /// The round left due operations for the next (more than `roundBudget`, or `laneBudget` keys).
        package var more = false
        /// Keys whose first operation is on hold: they wait for `spool-ctl release`, not for a time.
        package var heldKeys = 0
        /// Operations left out because their origin asked for a pause (`.origins`), by origin, with its end.
        package var heldByPause: [String: (until: Int64, count: Int)] = [:]
        /// Files under plain names were seen: one may be a producer still writing (left for a later run),
        /// which changes no folder time when it finishes, so no idle hint may be written.
        package var sawPlainNames = false
        /// Asked only whether anything is due (`makePlan(deciding: true)`): a key whose first operation is
        /// due was found, and no lanes were formed.
        package var foundDue = false
        /// Every id in `new/` and `cur/`, listed on first use: only `depends_on` needs it.
        package let present = PresentIndex()
        /// The documents of the operations the lanes come to next, read ahead of them (`Worker.run` sets it).
        package var readAhead: ReadAhead?
    }

    /// Where each queued id is, found by listing `new/` and `cur/` once per round, when first asked.
    package final class PresentIndex: Sendable {
        /// Each id's folder and file name, and the unfiled marker when they were listed; nil until the first
        /// `lookup` lists the folders.
        package let index = Locked<Listing?>(nil)

        /// An index that lists on its first lookup.
        package init() {}
        /// Where an id is: its folder and its file name there.
        package typealias Place = (folder: Spool.Folder, fileName: FileName)
        /// Every listed id's place, and the unfiled marker as it stood then.
        package typealias Listing = (places: [String: Place], unfiled: Spool.UnfiledMark?)

        /// Throws when a folder cannot be listed: a dependency must never look absent because of a fault. An id
        /// not listed is looked for again in a new listing when something was put back from `failed/` or
        /// `conflict/` since (`spool-ctl retry` of the dependency itself, after the caller found it filed nowhere).
        package func lookup(_ id: String, in spool: Spool) throws(SystemCallError) -> Place? {
            try index.withLock { index throws(SystemCallError) in
                if index == nil { index = try PresentIndex.list(spool) }
                if let place = index!.places[id] { return place }
                // Read under the lock, which an unfile holds from its move to its mark: a move the caller's look
                // into failed/ missed is marked by now.
                let unfiled = try spool.withLock { _ throws(SystemCallError) in spool.unfiledMark() }
                guard unfiled != index!.unfiled else { return nil }
                index = try PresentIndex.list(spool)
                return index!.places[id]
            }
        }

        /// Every id in `new/` and `cur/`, listed under the lock, which every return from `cur/` to `new/` takes:
        /// one made between the two listings would hide its operation from both. A claim only goes forward.
        static func list(_ spool: Spool) throws(SystemCallError) -> Listing {
            var found: [String: Place] = [:], unfiled: Spool.UnfiledMark?
            try spool.withLock { _ throws(SystemCallError) in
                unfiled = spool.unfiledMark()
                for folder in [Spool.Folder.new, .cur] {
                    do throws(Errno) {
                        try spool.forEachEntry(in: folder) { fileName, _ in
                            if let name = QueueName(fileName) { found[name.id] = (folder, fileName) }
                        }
                    } catch {
                        throw SystemCallError("list", "\(spool.path)/\(folder.rawValue)", error)
                    }
                }
            }
            return (found, unfiled)
        }
    }

    /// Lists the queue under the lock and forms the lanes of this round.
    ///
    /// The first pass reads only file names, without allocating, to find each key's first operation and
    /// whether it is due; so a queue of thousands of waiting operations costs one directory listing (and, where
    /// producers may drop, a status of each name: `Spool.laneKey`). The
    /// second pass, only for keys with something due, collects their operations. `deciding`, for the front
    /// that only asks whether to start a sender, skips the second pass when the first found a key whose first
    /// operation is due for certain (`foundDue`): the sender forms its lanes itself.
    ///
    /// The lock is held for the listings only. Files dropped under plain names are read, checked and filed
    /// without it and admitted under short takes of it, 32 to a take (`Spool.admitDropped`), then the queue is
    /// listed again; what is dropped meanwhile waits for the next round. Filings are made after the lock is
    /// let go. `claims`: the names in `cur/` a listing just made found (`hasDueWork`), taken for the first pass.
    package func makePlan(deciding: Bool = false, claims: [FileName]? = nil) -> Plan {
        let started = Timestamp.nowMicroseconds()
        defer { planSeconds.withLock { $0 = Double(Timestamp.nowMicroseconds() - started) / 1e6 } }
        var admitting = true
        while true {
            var builder = PlanBuilder(
                nowSeconds: Timestamp.nowSeconds(), parked: state.withLock { $0.parkedKeys }, options: options)
            builder.pausedOrigins = PlanBuilder.byHash(limits.pauses(nowSeconds: builder.nowSeconds))
            // The front seldom forms lanes (a due key or an idle queue ends its look first): keeping the names
            // for a second pass would only add a copy of each to an idle run's listing.
            if deciding { builder.snapshot = nil }
            let listed: Listed
            do throws(Errno) {
                listed = try spool.withLock { transaction throws(Errno) in
                    try list(
                        into: &builder, deciding: deciding, admitting: admitting, claims: admitting ? claims : nil,
                        transaction)
                }
            } catch {
                // Before the first listing, the step that failed was taking the lock.
                record(
                    SystemCallError(
                        builder.listing.isEmpty ? "lock" : "list",
                        builder.listing.isEmpty ? spool.lockPath : builder.listing, error))
                return builder.plan
            }
            // For the producers of a shared spool, who cannot list new/ to keep to --max-queue.
            spool.noteWaiting(builder.waiting, producers: builder.waitingByProducer)
            guard listed.dropped.isEmpty else {
                spool.admitDropped(
                    listed.dropped, maxSize: options.maxSize, maxPayload: maxPayload, log: log,
                    isStopping: { isStopping }, fault: { record($0) })
                admitting = false
                continue
            }
            failTooLate(listed.tooLate)
            // The quick reading and the full one must agree; a name only one accepts must not sit
            // silently at the head of its key.
            for fileName in listed.disagreeing {
                let why = Rejection.badName("the retry state in the name is malformed")
                if let fault = spool.file(
                    rejected: fileName, in: .new, id: OperationID.sanitized(fileName), why, log: log
                ).fault {
                    record(fault)
                }
            }
            return builder.finish()
        }
    }

    /// What a listing under the lock left to do once the lock is let go.
    package struct Listed {
        /// Files dropped under plain names (and bad names), to take in before listing again.
        var dropped: [FileName] = []
        /// Operations that would only expire while waiting, to file.
        var tooLate: [FileName] = []
        /// Names the quick reading and the full one disagree on, to file.
        var disagreeing: [FileName] = []
    }

    /// The listings `makePlan` makes under the lock: `new/` (returning at once with the dropped files when
    /// `admitting` and there are any), then `cur/`, then the due keys' operations.
    private func list(
        into builder: inout PlanBuilder, deciding: Bool, admitting: Bool, claims: [FileName]?,
        _ transaction: Spool.Transaction
    ) throws(Errno) -> Listed {
        let (others, tooLate) = try builder.listWaiting(spool)
        // A name with a retry state that the quick reading refused is taken in here, under the lock; a claimed
        // one found in new/ is filed as a bad name with the dropped files, with its fsyncs, once it is let go.
        var stated: [FileName] = [], dropped: [FileName] = []
        for fileName in others {
            let name = QueueName(fileName)
            if name?.state != nil, name?.claim == nil { stated.append(fileName) } else { dropped.append(fileName) }
        }
        if admitting, !dropped.isEmpty { return Listed(dropped: dropped) }
        builder.plan.sawPlainNames = !others.isEmpty
        intake(stated, into: &builder, transaction)
        if let claims { try builder.takeHeld(claims, spool) } else { try builder.listHeld(spool) }
        var listed = Listed(tooLate: tooLate)
        let dueKeys = builder.dueKeys()
        guard !dueKeys.isEmpty else { return listed }
        // Only the second pass tells for a tied head, which may turn out not due once its key is sorted by id,
        // and after files dropped under plain names were taken in: a dropped DELETE may have cancelled a head
        // noted in the first pass.
        if deciding, !builder.plan.sawPlainNames, dueKeys.contains(where: { builder.heads[$0]?.tied == false }) {
            builder.plan.foundDue = true
            return listed
        }
        listed.disagreeing = try builder.collect(dueKeys, spool)
        return listed
    }

    /// Files what would only expire while waiting: say so now rather than in days.
    package func failTooLate(_ names: [FileName]) {
        for fileName in names {
            guard let name = QueueName(fileName), let state = name.state else { continue }
            let why = state.attempts == 0
                ? "not_before is after the queue lifetime of \(options.lifetimeSeconds) seconds: it would expire "
                    + "before its first attempt"
                : "the next attempt would come after the queue lifetime of \(options.lifetimeSeconds) seconds"
            file(QueueEntry(fileName: fileName, name: name), from: .new, to: .failed,
                 reason: FilingReason([("reason", why), ("attempts", "\(state.attempts)")]))
        }
    }

    /// Takes in names with a retry state that the quick reading refused, noting each as a candidate head of
    /// its key.
    package func intake(_ names: [FileName], into builder: inout PlanBuilder, _ transaction: Spool.Transaction) {
        for fileName in spool.inWrittenOrder(names) where !isStopping {
            do throws(SystemCallError) {
                if let entry = try transaction.intake(
                    fileName, maxSize: options.maxSize, maxPayload: maxPayload, log: log)
                {
                    builder.note(
                        entry.laneKey, orderMicroseconds: entry.state.orderMicroseconds,
                        dueSeconds: entry.state.dueSeconds,
                        priority: entry.state.priority, originHash: entry.state.originHash,
                        keyHash: entry.state.keyHash)
                }
            } catch {
                record(error)
            }
        }
    }
}
