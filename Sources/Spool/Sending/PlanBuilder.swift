import Glibc
import SpoolConfiguration
import SpoolDocument
import SpoolHandlers
import SpoolNames
import SpoolQueue
import SpoolSystem
import SpoolTransport

/// One round's look at the queue, pass by pass: each key's first operation, the keys held by claims,
/// and the lanes of the keys with something due.
package struct PlanBuilder {
    /// What the first pass learns of one key from its names: its first operation, and what waits behind it.
    package struct Head {
        /// The first operation's enqueue order stamp, in microseconds since the epoch.
        package var orderMicroseconds: Int64
        /// When the first operation is due, in seconds since the epoch.
        package var dueSeconds: Int64
        /// Another operation has the same order stamp: only sorting by id can tell which is first.
        package var tied = false
        /// The highest priority waiting in the key.
        package var priority = 0
        /// The first operation is on hold: the key waits for its release, whatever is due.
        package var held = false
        /// The first operation's origin hash (`h=`), 0 when its name has none.
        package var originHash: UInt32 = 0
        /// The key hash its names carry (`k=`): the lane's key unless a producer's lane sets it apart.
        package var keyHash: UInt64 = 0
    }

    /// The most operations one round holds, spread over its lanes: what a round keeps in memory follows
    /// what it can send, not what waits. The rest of a long queue comes in the next rounds.
    package static let roundBudget = 65_536
    /// The most lanes one round forms: the keys that go first (priority, then enqueue order).
    package static let laneBudget = 16_384

    /// The time of this round, in seconds since the epoch: what is due is judged against it.
    package let nowSeconds: Int64
    /// Keys parked for the rest of the run (`RunState.parkedKeys`): no lane is formed for them.
    package let parked: Set<UInt64>
    /// The worker's options: `flush` makes every key due, `lifetimeSeconds` bounds a retry time.
    package let options: WorkerOptions
    /// This round's budgets (the tests make them small).
    package var roundBudget = PlanBuilder.roundBudget, laneBudget = PlanBuilder.laneBudget
    /// The plan being built: next due time, `more` and pauses met along the passes; `finish` adds the lanes.
    package var plan = Worker.Plan()
    /// Each key's head, by lane key, as the first pass notes it.
    package var heads: [UInt64: Head] = [:]
    /// The keys with a claim in `cur/` (`listHeld`): they form no lane this round.
    package var held = Set<UInt64>()
    /// Each due key's first operations in enqueue order, by lane key, as `collect` keeps them.
    package var queues: [UInt64: [QueueEntry]] = [:]
    /// The folder being listed, for the message when listing fails.
    package var listing = ""
    /// The entries `listWaiting` found in `new/`, hidden ones left out: `.waiting`'s count.
    package var waiting = 0
    /// The producer of each lane of a producer's writes (a spool many users drop into), for their turns.
    package var producers: [UInt64: UInt32] = [:]
    /// What each producer has waiting in `new/` (a spool many users drop into): `.waiting`'s lines.
    package var waitingByProducer: [UInt32: Spool.Waiting] = [:]
    /// The first pass's names for the second (`collect`), so that a round lists `new/` once; nil when `new/` held
    /// more waiting names than the snapshot keeps (`NameSnapshot.defaultLimit`), and for the front, which
    /// seldom forms lanes. Between the passes the lock is held: only a producer's new name can appear, and it
    /// waits for the next round.
    package var snapshot: NameSnapshot? = NameSnapshot()
    /// Origins that asked for a pause still running, by the hash names carry (`h=`), with its end: their
    /// keys are not due, so a run over a paused origin's backlog opens none of its documents.
    package var pausedOrigins: [UInt32: (origin: String, until: Int64)] = [:]

    /// A builder for a round at `nowSeconds` that passes over the `parked` keys.
    package init(nowSeconds: Int64, parked: Set<UInt64>, options: WorkerOptions) {
        self.nowSeconds = nowSeconds
        self.parked = parked
        self.options = options
    }

    /// Notes one waiting operation of `lane` from its name: the key's earliest becomes its head, its highest
    /// priority kept, and the operation counted in `heldByPause` when its origin is paused.
    package mutating func note(
        _ lane: UInt64, orderMicroseconds: Int64, dueSeconds: Int64, priority: Int, held: Bool = false,
        originHash: UInt32 = 0, keyHash: UInt64? = nil
    ) {
        let keyHash = keyHash ?? lane
        if originHash != 0, let pause = pausedOrigins[originHash] {
            plan.heldByPause[pause.origin, default: (pause.until, 0)].count += 1
        }
        guard let head = heads[lane] else {
            heads[lane] = Head(
                orderMicroseconds: orderMicroseconds, dueSeconds: dueSeconds, priority: priority, held: held,
                originHash: originHash, keyHash: keyHash)
            return
        }
        if orderMicroseconds < head.orderMicroseconds {
            heads[lane] = Head(
                orderMicroseconds: orderMicroseconds, dueSeconds: dueSeconds, priority: max(priority, head.priority),
                held: held, originHash: originHash, keyHash: keyHash)
        } else {
            if orderMicroseconds == head.orderMicroseconds { heads[lane]!.tied = true }
            if priority > head.priority { heads[lane]!.priority = priority }
        }
    }

    /// `Spool.laneKey` of a listed name, inside a listing's body, which cannot throw: the first fault is kept
    /// in `fault`, thrown once the listing ends, and every later name is passed over (nil, as a name gone).
    static func lane(
        _ keyHash: UInt64, of raw: UnsafeBufferPointer<UInt8>, in folder: Spool.Folder, _ spool: Spool,
        fault: inout Errno?
    ) -> UInt64? {
        lane(keyHash, raw, in: folder, spool, fault: &fault)?.key
    }

    /// `lane`, with the producer whose lane it is (nil: the owner's and root's) and the file's size.
    static func lane(
        _ keyHash: UInt64, _ raw: UnsafeBufferPointer<UInt8>, in folder: Spool.Folder, _ spool: Spool,
        fault: inout Errno?
    ) -> (key: UInt64, producer: UInt32?, size: Int)? {
        guard fault == nil else { return nil }
        do throws(Errno) { return try spool.lane(keyHash, of: raw, in: folder) } catch {
            fault = error
            return nil
        }
    }

    /// The first pass over `new/`, names only: notes each key's head; returns the plain names to admit and
    /// those whose retry time is past the lifetime.
    package mutating func listWaiting(_ spool: Spool) throws(Errno) -> (others: [FileName], tooLate: [FileName]) {
        listing = "\(spool.path)/new"
        var others: [FileName] = [], tooLate: [FileName] = []
        var fault: Errno?
        let lifetimeSeconds = options.lifetimeSeconds
        waiting = 0
        waitingByProducer = [:]
        try spool.forEachRawEntry(in: .new) { raw, _ in
            guard raw.first != UInt8(ascii: ".") else { return }
            waiting += 1
            if let facts = QueueName.Facts(raw), !facts.claimed {
                // What the second pass would look at, kept while `new/` is short.
                if snapshot?.add(raw) == false { snapshot = nil }
                if facts.dueSeconds > facts.orderMicroseconds / 1_000_000 + lifetimeSeconds {
                    tooLate.append(FileName(bytes: Array(raw)))
                } else {
                    guard let (lane, producer, size) = Self.lane(facts.keyHash, raw, in: .new, spool, fault: &fault)
                    else { return }
                    if let producer {
                        producers[lane] = producer
                        let before = waitingByProducer[producer] ?? (0, 0)
                        waitingByProducer[producer] = (before.count + 1, before.bytes + Int64(size))
                    }
                    note(
                        lane, orderMicroseconds: facts.orderMicroseconds, dueSeconds: facts.dueSeconds,
                        priority: facts.priority, held: facts.held, originHash: facts.originHash,
                        keyHash: facts.keyHash)
                }
            } else {
                others.append(FileName(bytes: Array(raw)))
            }
        }
        if let fault { throw fault }
        return (others, tooLate)
    }

    /// The keys to form lanes for, at most `laneBudget` of them, those that go first; the others' earliest
    /// due time goes into the plan.
    package mutating func dueKeys() -> Set<UInt64> {
        var keys: [(key: UInt64, head: Head)] = []
        // A key whose first operation is on hold waits for `spool-ctl release`: no due time to wake for, but
        // counted, so that a run does not say that nothing waits.
        plan.heldKeys = heads.values.reduce(0) { $0 + ($1.held ? 1 : 0) }
        for (key, head) in heads where !held.contains(key) && !head.held {
            if parked.contains(key) {
                // Not this run's any more, but a watcher must wake when it becomes due.
                if head.dueSeconds > nowSeconds { plan.nextDue = min(plan.nextDue ?? head.dueSeconds, head.dueSeconds) }
            } else if head.originHash != 0, let pause = pausedOrigins[head.originHash] {
                // Its origin asked for a pause (even --flush keeps it: `spool-ctl flush --origin` lifts it).
                let due = max(head.dueSeconds, pause.until)
                plan.nextDue = min(plan.nextDue ?? due, due)
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

    /// The second pass: the first waiting operations of each due key, at most `roundBudget` in all, from the
    /// first pass's `snapshot` when it kept one, else from `new/` listed again. Returns the names the full
    /// parser refused. A name dropped into `new/` since the first pass waits for the next round, as one
    /// dropped after the second listing always did.
    package mutating func collect(_ dueKeys: Set<UInt64>, _ spool: Spool) throws(Errno) -> [FileName] {
        listing = "\(spool.path)/new"
        let perLane = max(2, roundBudget / max(1, dueKeys.count))
        var unreadable: [FileName] = []
        var found: [UInt64: Kept] = [:]
        var dropped = false
        var fault: Errno?
        // The key hashes behind the due lanes: a name of no due key is passed over before its owner is asked.
        let dueHashes = spool.users.takesProducerDrops ? Set(dueKeys.compactMap { heads[$0]?.keyHash }) : dueKeys
        func visit(_ raw: UnsafeBufferPointer<UInt8>) {
            guard let facts = QueueName.Facts(raw), !facts.claimed, dueHashes.contains(facts.keyHash),
                  let lane = Self.lane(facts.keyHash, of: raw, in: .new, spool, fault: &fault), dueKeys.contains(lane)
            else { return }
            // Later than every one kept: not parsed at all.
            if let cutoff = found[lane]?.cutoff, facts.orderMicroseconds > cutoff {
                dropped = true
                return
            }
            let fileName = FileName(bytes: Array(raw))
            guard let name = QueueName(fileName) else { return unreadable.append(fileName) }
            let entry = QueueEntry(fileName: fileName, name: name, laneKey: lane)
            if found[lane, default: Kept()].add(entry, keeping: perLane) {
                dropped = true
            }
        }
        if let snapshot {
            snapshot.forEach(visit)
        } else {
            try spool.forEachRawEntry(in: .new) { raw, _ in visit(raw) }
        }
        if let fault { throw fault }
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
        /// The operations kept; in enqueue order once `trim` has run.
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
        plan.lanes = producers.isEmpty ? ranked.map(\.lane) : PlanBuilder.inTurns(ranked, producers)
        return plan
    }
}
