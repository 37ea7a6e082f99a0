import Glibc
import Synchronization

/// Planning a round: which keys have something due, and each key's lane in order.
extension Worker {
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
}
