import Glibc
import SpoolDocument
import SpoolNames
import SpoolSystem
import SpoolTransport

/// What a write does to the writes still waiting on its key, instead of being queued: a `merge` write's body
/// is merged into the newest of them (RFC 7396), a DELETE of a resource whose create was never attempted
/// cancels the create and what waits behind it. Both under the spool lock, at enqueue and at admission alike.
package enum Folding: Sendable, Equatable {
    /// The change now travels in this waiting operation; nothing was queued.
    case merged(into: String)
    /// These waiting operations (the create first) were removed, and the DELETE with them: nothing is sent.
    case cancelled([String])
}

/// What `fold` made of a write: taken in, or to be queued as its own.
package enum FoldOutcome: Sendable, Equatable {
    /// Taken in: the write itself is not queued.
    case folded(Folding)
    /// Nothing waiting takes it: queue it as its own.
    case queue
    /// A merge into this waiting operation that the file system cannot make (no atomic exchange of two names,
    /// as on some FUSE and network file systems): queue it as its own, and say so.
    case queueNotMerged(into: String)
}

/// One operation waiting on a key, as the folding decision sees it.
package struct KeyEntry: Sendable, Equatable {
    /// Its id.
    package var id: String
    /// `new/` or `cur/`.
    package var folder: Spool.Folder
    /// Its name there.
    package var name: FileName
    /// Attempts made.
    package var attempts: Int
    /// Its place in the order.
    package var orderMicroseconds: Int64
    /// Whether its document says `creates`.
    package var creates: Bool
    /// Whether its body is JSON that a merge patch can go into (no payload, no handler).
    package var mergeable: Bool
    /// Who dropped it (its file's owner); nil when it could not be read.
    package var producer: UInt32? = nil

    /// Taken back from a worker that died, stranded by one (`RetryState.interrupted`), or put back from
    /// `failed/` or `conflict/` (`RetryState.retriedToken`): it may have been sent.
    package var interrupted = false

    /// Never attempted, not being sent, and never claimed by a worker that stopped short: still free to change.
    package var untouched: Bool { folder == .new && attempts == 0 && !interrupted }
}

/// The pure decision of folding, in the manner of the lane decision: what to do, from what waits.
package enum FoldDecision: Equatable, Sendable {
    /// Merge into this entry.
    case merge(KeyEntry)
    /// Remove these entries, newest first.
    case cancel([KeyEntry])

    /// What a write does to its key's waiting `entries` (oldest first), or nil to queue it as its own. In a
    /// shared spool a write folds only into its own producer's (`producer`), and a merge, which writes the
    /// merged file anew, only when that producer is the `writer` (the merged file's owner is whoever writes it).
    package static func decide(
        merge: Bool, delete: Bool, entries: [KeyEntry], producer: UInt32? = nil, writer: UInt32? = nil
    ) -> FoldDecision? {
        if delete, let create = entries.lastIndex(where: { $0.creates }) {
            // The create and everything behind it must be untouched: if any was tried, the server may have it.
            let doomed = entries[create...]
            guard doomed.allSatisfy(\.untouched), doomed.allSatisfy({ $0.producer == producer }) else { return nil }
            return .cancel(doomed.reversed())
        }
        if merge, let newest = entries.last, newest.untouched, newest.mergeable, newest.producer == producer,
           producer == writer
        {
            return .merge(newest)
        }
        return nil
    }
}

extension Spool.Transaction {
    /// The operations waiting on the key that hashes to `keyHash`, in `new/` and `cur/`, oldest first; only
    /// those ordered before `before` when given (a dropped file's own time). Their documents are read. Also how
    /// many files in `new/` are not admitted yet: their keys are unknown until they are read.
    package func keyEntries(
        _ keyHash: UInt64, before: Int64? = nil
    ) throws(SystemCallError) -> (entries: [KeyEntry], unadmitted: Int) {
        var entries: [KeyEntry] = [], unadmitted = 0
        for folder in [Spool.Folder.new, .cur] {
            var names: [QueueName] = []
            do {
                try spool.forEachRawEntry(in: folder) { raw, _ in
                    let facts = QueueName.Facts(raw)
                    if facts == nil, folder == .new, raw.first != UInt8(ascii: "."),
                       QueueName(FileName(bytes: Array(raw)))?.state == nil
                    {
                        unadmitted += 1
                        return
                    }
                    guard let facts, facts.keyHash == keyHash,
                          let name = QueueName(FileName(bytes: Array(raw))), let state = name.state
                    else { return }
                    if let before, state.orderMicroseconds >= before { return }
                    names.append(name)
                }
            } catch {
                throw SystemCallError("list", "\(spool.path)/\(folder.rawValue)", error)
            }
            for name in names {
                let read = try? spool.readOperation(folder, name.fileName, maxSize: Spool.defaultMaxDocumentSize)
                let operation = read?.operation
                entries.append(KeyEntry(
                    id: name.id, folder: folder, name: name.fileName, attempts: name.state!.attempts,
                    orderMicroseconds: name.state!.orderMicroseconds, creates: operation?.creates ?? false,
                    mergeable: operation.map(Spool.isMergeable) ?? false, producer: operation?.producer,
                    interrupted: name.state!.mayHaveBeenSent))
            }
        }
        return (entries.sorted { ($0.orderMicroseconds, $0.id) < ($1.orderMicroseconds, $1.id) }, unadmitted)
    }

    /// Folds `operation` into what waits on its key, or says to queue it as its own (nothing to fold into, or
    /// a file system that cannot exchange two names).
    package func fold(_ operation: Operation, before: Int64? = nil, log: Log) throws(SystemCallError) -> FoldOutcome {
        let delete = operation.handler == nil && operation.method == "DELETE"
        guard operation.merge || delete else { return .queue }
        let writer = UserDatabase.effectiveUser
        let scope = spool.users.keyScope(of: operation.producer ?? writer)
        let (entries, unadmitted) = try keyEntries(RetryState.keyHash(operation.key, scope: scope), before: before)
        // At enqueue, a file dropped but not yet admitted may be a write on this key, ordered before this one
        // by its time: folding past it would reorder the two (a merge landing in an older write, a DELETE
        // cancelling a create the dropped write then recreates). Queued behind everything instead. (Admission
        // takes dropped files in their order, so the ones before a dropped merge are in already.)
        if before == nil, unadmitted > 0 { return .queue }
        switch FoldDecision.decide(
            merge: operation.merge, delete: delete, entries: entries, producer: operation.producer ?? writer,
            writer: writer)
        {
        case nil: return .queue
        case let .merge(entry): return try merge(operation, into: entry, log: log)
        case let .cancel(doomed):
            var cancelled: [String] = []
            for entry in doomed {
                switch discard(entry.name, id: entry.id, in: .new) {
                case .moved, .gone: cancelled.append(entry.id)
                case let .fault(fault): throw fault
                }
            }
            // The producer is told that nothing is queued: the removals must outlast a power cut, or the create
            // would come back and be sent while the DELETE was never written.
            do throws(Errno) { try spool.directory(.new).sync() } catch {
                throw SystemCallError("sync", "\(spool.path)/new", error)
            }
            log.notice("\(operation.summary): cancelled \(cancelled.reversed().joined(separator: ", ")), never sent "
                + "(the resource's create was still waiting); nothing is sent")
            return .folded(.cancelled(cancelled.reversed()))
        }
    }

    /// Merges `patch`'s body into `entry`'s: the merged document is written to `tmp/` and synced, then swapped
    /// with the waiting one in a single exchange of names, so that `new/` holds the old document or the
    /// merged one at every instant, never both and never neither; the old one, now in `tmp/`, is removed.
    func merge(_ patch: Operation, into entry: KeyEntry, log: Log) throws(SystemCallError) -> FoldOutcome {
        guard let read = try? spool.readOperationAndStatus(.new, entry.name, maxSize: Spool.defaultMaxDocumentSize),
              case let target = read.operation, Spool.isMergeable(target), case var .object(members) = target.document,
              let base = try? JSON.parse(target.body ?? []), let change = try? JSON.parse(patch.body ?? [])
        else { return .queue }
        let merged = base.mergePatched(with: change)
        members.removeAll { $0.key == "body" || $0.key == "body_base64" }
        members.append(("body", target.bodyIsJSON ? merged : .string(merged.text)))
        let document = Array((JSON.object(members).text + "\n").utf8)
        let temporary = FileName(UniqueName.next().id)
        do throws(Errno) {
            // Its writer's mode, as an enqueue's: root's merge in a shared spool must stay readable by the sender.
            let fd = try spool.directory(.tmp).open(
                temporary, O_WRONLY | O_CREAT | O_EXCL, mode: spool.users.writtenFileMode)
            defer { fd.close() }
            try fd.writeAll(document)
            // Later than the document it replaces, even within one tick of the file system's coarse clock. A
            // sender that read an earlier document checks the file it claims by inode, time and size
            // (FileIdentity), and a later merge's file may get that document's freed inode and its size: only
            // times that always grow along the merges tell the two apart.
            try fd.makeModifiedLater(than: read.status.modifiedNanoseconds)
            // Complete on the disk before it takes the waiting operation's name.
            try fd.sync()
        } catch {
            try? spool.removeTemporary(temporary)
            throw SystemCallError("write the merged document", spool.displayPath(.tmp, temporary), error)
        }
        CrashPoint.reach("merge.written")
        switch supersede(entry.name, with: temporary) {
        case .moved(true): break
        case .moved(false):
            try? spool.removeTemporary(temporary)
            return .queueNotMerged(into: entry.id)
        case .gone:
            try? spool.removeTemporary(temporary)
            return .queue
        case let .fault(fault):
            try? spool.removeTemporary(temporary)
            throw fault
        }
        log.detail("\(patch.summary): merged into \(entry.id)")
        return .folded(.merged(into: entry.id))
    }
}

extension Spool {
    /// Whether a waiting operation's body can take a merge patch: a request (not a handler's job) whose body,
    /// not a payload, is JSON.
    package static func isMergeable(_ operation: Operation) -> Bool {
        guard operation.handler == nil, !operation.hasPayload, let body = operation.body, !body.isEmpty else {
            return false
        }
        return (try? JSON.parse(body)) != nil
    }
}
