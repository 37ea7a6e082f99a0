import Glibc
import Synchronization
import SpoolConfiguration
import SpoolDocument
import SpoolHandlers
import SpoolNames
import SpoolQueue
import SpoolSystem
import SpoolTransport

/// Planning a round: which keys have something due, and each key's lane in order.
extension Worker {
    package struct Plan {
        package var lanes: [[QueueEntry]] = []
        package var nextDue: Int64?
        /// The round left due operations for the next (more than `roundBudget`, or `laneBudget` keys).
        package var more = false
        /// Files under plain names were seen: one may be a producer still writing (left for a later run),
        /// which changes no folder time when it finishes, so no idle hint may be written.
        package var sawPlainNames = false
        /// Every id in `new/` and `cur/`, listed on first use: only `depends_on` needs it.
        package let present = PresentIndex()
    }

    /// Where each queued id is, found by listing `new/` and `cur/` once per round, when first asked.
    package final class PresentIndex: Sendable {
        package let index = Mutex<[String: (folder: Spool.Folder, fileName: FileName)]?>(nil)

        /// Throws when a folder cannot be listed: a dependency must never look absent because of a fault.
        package func lookup(_ id: String, in spool: Spool) throws(SystemCallError) -> (
            folder: Spool.Folder, fileName: FileName
        )? {
            try index.withLock { index throws(SystemCallError) in
                if index == nil {
                    var found: [String: (folder: Spool.Folder, fileName: FileName)] = [:]
                    for folder in [Spool.Folder.new, .cur] {
                        do throws(Errno) {
                            try spool.directory(folder).forEachEntry { fileName, _ in
                                if let name = QueueName(fileName) { found[name.id] = (folder, fileName) }
                            }
                        } catch {
                            throw SystemCallError("list", "\(spool.path)/\(folder.rawValue)", error)
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
    package func makePlan() -> Plan {
        let started = Timestamp.nowMicroseconds()
        defer { planSeconds.withLock { $0 = Double(Timestamp.nowMicroseconds() - started) / 1e6 } }
        var builder = PlanBuilder(
            nowSeconds: Timestamp.nowSeconds(), parked: state.withLock { $0.parkedKeys }, options: options)
        do throws(Errno) {
            try spool.withLock { transaction throws(Errno) in
                let (others, tooLate) = try builder.listWaiting(spool)
                failTooLate(tooLate)
                builder.plan.sawPlainNames = !others.isEmpty
                intake(others, into: &builder, transaction)
                try builder.listHeld(spool)
                let dueKeys = builder.dueKeys()
                guard !dueKeys.isEmpty else { return }
                // The quick reading and the full one must agree; a name only one accepts must not sit
                // silently at the head of its key.
                for fileName in try builder.collect(dueKeys, spool) {
                    let why = Rejection.badName("the retry state in the name is malformed")
                    if let fault = spool.file(
                        rejected: fileName, in: .new, id: OperationID.sanitized(fileName), why, log: log
                    ).fault {
                        record(fault)
                    }
                }
            }
        } catch {
            // Before the first listing, the step that failed was taking the lock.
            record(
                SystemCallError(
                    builder.listing.isEmpty ? "lock" : "list",
                    builder.listing.isEmpty ? spool.lockPath : builder.listing, error))
            return builder.plan
        }
        return builder.finish()
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

    /// Takes in files dropped under plain names, noting each admitted one as a candidate head of its key.
    package func intake(_ names: [FileName], into builder: inout PlanBuilder, _ transaction: Spool.Transaction) {
        for fileName in names where !isStopping {
            do throws(SystemCallError) {
                if let entry = try transaction.intake(
                    fileName, maxSize: options.maxSize, maxPayload: options.maxPayload, log: log)
                {
                    builder.note(
                        entry.state.keyHash, orderMicroseconds: entry.state.orderMicroseconds,
                        dueSeconds: entry.state.dueSeconds,
                        priority: entry.state.priority)
                }
            } catch {
                record(error)
            }
        }
    }
}

/// One round's look at the queue, pass by pass: each key's first operation, the keys held by claims,
/// and the lanes of the keys with something due.
package struct PlanBuilder {
    package struct Head {
        package var orderMicroseconds: Int64
        package var dueSeconds: Int64
        /// Another operation has the same order stamp: only sorting by id can tell which is first.
        package var tied = false
        /// The highest priority waiting in the key.
        package var priority = 0
        /// The first operation is on hold: the key waits for its release, whatever is due.
        package var held = false
    }

    /// The most operations one round holds, spread over its lanes: what a round keeps in memory follows
    /// what it can send, not what waits. The rest of a long queue comes in the next rounds.
    package static let roundBudget = 65_536
    /// The most lanes one round forms: the keys that go first (priority, then enqueue order).
    package static let laneBudget = 16_384

    package let nowSeconds: Int64
    package let parked: Set<UInt64>
    package let options: WorkerOptions
    /// This round's budgets (the tests make them small).
    package var roundBudget = PlanBuilder.roundBudget, laneBudget = PlanBuilder.laneBudget
    package var plan = Worker.Plan()
    package var heads: [UInt64: Head] = [:]
    package var held = Set<UInt64>()
    package var queues: [UInt64: [QueueEntry]] = [:]
    /// The folder being listed, for the message when listing fails.
    package var listing = ""

    package init(nowSeconds: Int64, parked: Set<UInt64>, options: WorkerOptions) {
        self.nowSeconds = nowSeconds
        self.parked = parked
        self.options = options
    }

    package mutating func note(
        _ keyHash: UInt64, orderMicroseconds: Int64, dueSeconds: Int64, priority: Int, held: Bool = false
    ) {
        guard let head = heads[keyHash] else {
            heads[keyHash] = Head(
                orderMicroseconds: orderMicroseconds, dueSeconds: dueSeconds, priority: priority, held: held)
            return
        }
        if orderMicroseconds < head.orderMicroseconds {
            heads[keyHash] = Head(
                orderMicroseconds: orderMicroseconds, dueSeconds: dueSeconds, priority: max(priority, head.priority),
                held: held)
        } else {
            if orderMicroseconds == head.orderMicroseconds { heads[keyHash]!.tied = true }
            if priority > head.priority { heads[keyHash]!.priority = priority }
        }
    }

    /// The first pass over `new/`, names only: notes each key's head; returns the plain names to admit and
    /// those whose retry time is past the lifetime.
    package mutating func listWaiting(_ spool: Spool) throws(Errno) -> (others: [FileName], tooLate: [FileName]) {
        listing = "\(spool.path)/new"
        var others: [FileName] = [], tooLate: [FileName] = []
        let lifetimeSeconds = options.lifetimeSeconds
        try spool.directory(.new).forEachRawEntry { raw, _ in
            guard raw.first != UInt8(ascii: ".") else { return }
            if let facts = QueueName.Facts(raw), !facts.claimed {
                if facts.dueSeconds > facts.orderMicroseconds / 1_000_000 + lifetimeSeconds {
                    tooLate.append(FileName(bytes: Array(raw)))
                } else {
                    note(
                        facts.keyHash, orderMicroseconds: facts.orderMicroseconds, dueSeconds: facts.dueSeconds,
                        priority: facts.priority,
                        held: facts.held)
                }
            } else {
                others.append(FileName(bytes: Array(raw)))
            }
        }
        return (others, tooLate)
    }

    /// The keys another worker (or a dead one) holds a claim of.
    package mutating func listHeld(_ spool: Spool) throws(Errno) {
        listing = "\(spool.path)/cur"
        var found = Set<UInt64>()
        try spool.directory(.cur).forEachRawEntry { raw, _ in
            if let facts = QueueName.Facts(raw) { found.insert(facts.keyHash) }
        }
        held = found
    }

    /// The keys to form lanes for, at most `laneBudget` of them, those that go first; the others' earliest
    /// due time goes into the plan.
    package mutating func dueKeys() -> Set<UInt64> {
        var keys: [(key: UInt64, head: Head)] = []
        // A key whose first operation is on hold waits for `spool-ctl release`: no due time to wake for.
        for (key, head) in heads where !held.contains(key) && !head.held {
            if parked.contains(key) {
                // Not this run's any more, but a watcher must wake when it becomes due.
                if head.dueSeconds > nowSeconds { plan.nextDue = min(plan.nextDue ?? head.dueSeconds, head.dueSeconds) }
            } else if options.flush || head.dueSeconds <= nowSeconds || head.tied {
                keys.append((key, head))
            } else {
                plan.nextDue = min(plan.nextDue ?? head.dueSeconds, head.dueSeconds)
            }
        }
        guard keys.count > laneBudget else { return Set(keys.map(\.key)) }
        // More due keys than a round holds: the rest are due still, and the next round takes them.
        let first = keys.sorted { a, b in
            a.head.priority != b.head.priority
                ? a.head.priority > b.head.priority : a.head.orderMicroseconds < b.head.orderMicroseconds
        }.prefix(laneBudget)
        plan.more = true
        return Set(first.map(\.key))
    }

    /// The second pass: the first waiting operations of each due key, at most `roundBudget` in all. Returns
    /// the names the full parser refused.
    package mutating func collect(_ dueKeys: Set<UInt64>, _ spool: Spool) throws(Errno) -> [FileName] {
        listing = "\(spool.path)/new"
        let perLane = max(2, roundBudget / max(1, dueKeys.count))
        var unreadable: [FileName] = []
        var found: [UInt64: Kept] = [:]
        var dropped = false
        try spool.directory(.new).forEachRawEntry { raw, _ in
            guard let facts = QueueName.Facts(raw), !facts.claimed, dueKeys.contains(facts.keyHash) else { return }
            // Later than every one kept: not parsed at all.
            if let cutoff = found[facts.keyHash]?.cutoff, facts.orderMicroseconds > cutoff {
                dropped = true
                return
            }
            let fileName = FileName(bytes: Array(raw))
            guard let name = QueueName(fileName) else { return unreadable.append(fileName) }
            if found[facts.keyHash, default: Kept()].add(QueueEntry(fileName: fileName, name: name), keeping: perLane) {
                dropped = true
            }
        }
        queues = [:]
        for (key, var kept) in found {
            if kept.trim(to: perLane) { dropped = true }
            queues[key] = kept.entries
        }
        if dropped { plan.more = true }
        return unreadable
    }

    /// One key's first operations as `collect` finds them, in directory order: sorted and cut back to the
    /// limit whenever they reach twice it (so a key's pass costs n log n, not a shift per insertion).
    package struct Kept {
        package var entries: [QueueEntry] = []
        /// The order stamp past which an operation cannot be among the first, once known.
        package var cutoff: Int64?

        /// Adds one; returns whether some were dropped to stay within twice `limit`.
        package mutating func add(_ entry: QueueEntry, keeping limit: Int) -> Bool {
            entries.append(entry)
            return entries.count >= 2 * limit && trim(to: limit)
        }

        /// Sorts by `QueueEntry.precedes` and keeps the first `limit`; returns whether any were dropped.
        package mutating func trim(to limit: Int) -> Bool {
            entries.sort(by: QueueEntry.precedes)
            guard entries.count > limit else { return false }
            entries.removeLast(entries.count - limit)
            cutoff = entries[limit - 1].state.orderMicroseconds
            return true
        }
    }

    /// The lanes in order, each sorted; a lane whose first operation is not due yet only sets the next due time.
    /// Higher priority first (a lane takes the highest of what waits in it, so an urgent write is never stuck
    /// behind a low one's place), then enqueue order; inside a lane, enqueue order alone.
    package mutating func finish() -> Worker.Plan {
        var ranked: [(priority: Int, lane: [QueueEntry])] = []
        for (key, queue) in queues {
            let dueSeconds = queue[0].state.dueSeconds
            if queue[0].state.held { continue }
            if !options.flush, dueSeconds > nowSeconds {
                plan.nextDue = min(plan.nextDue ?? dueSeconds, dueSeconds)
                continue
            }
            // The key's whole queue, as the first pass saw it: a round may hold only its first operations.
            ranked.append((heads[key]?.priority ?? 0, queue))
        }
        ranked.sort {
            $0.priority != $1.priority ? $0.priority > $1.priority : QueueEntry.precedes($0.lane[0], $1.lane[0])
        }
        plan.lanes = ranked.map(\.lane)
        return plan
    }
}
