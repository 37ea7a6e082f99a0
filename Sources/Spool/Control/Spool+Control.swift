import Glibc
import SpoolConfiguration
import SpoolDocument
import SpoolHandlers
import SpoolNames
import SpoolQueue
import SpoolReporting
import SpoolSystem
import SpoolTransport

extension Spool {
    /// Puts a filed operation back in `new/` with no attempts, keeping its idempotency key and its place in the
    /// order (an earlier attempt may have been applied with its answer lost). With `ifMatch`, the document's
    /// `if_match` is replaced and it gets a new idempotency key: it is a new request, and the server may have
    /// recorded the 412 under the old key. Returns the name it now has in `new/`.
    ///
    /// Every step leaves the operation in exactly one place: the new document replaces the old one in its
    /// folder by rename before the operation moves.
    package func retry(_ item: QueueItem, ifMatch: String? = nil, body: JSON? = nil) throws(ControlError) -> FileName {
        guard item.folder == .failed || item.folder == .conflict else {
            throw .notFiled(id: item.id, folder: item.folder)
        }
        // A symbolic link is filed because spool never follows one: back in new/ it would only be filed again.
        if (try? directory(item.folder).status(of: item.fileName))?.isSymbolicLink == true {
            throw .unreadable(
                id: item.id, why: "it is a symbolic link, which spool never follows, so it would only be filed "
                    + "again; discard it, and drop the write itself as a file")
        }
        var operation = item.operation
        if ifMatch != nil || body != nil {
            guard let current = operation, case var .object(members) = current.document else {
                throw .unreadable(id: item.id, why: item.problem ?? "the document is not an operation")
            }
            members.removeAll { $0.key == "if_match" || $0.key == "idempotency_key" }
            if let ifMatch { members.append(("if_match", .string(ifMatch))) }
            if let body {
                // `body` is the write's new body: JSON text for a JSON write, else a string.
                members.removeAll { $0.key == "body" || $0.key == "body_base64" }
                members.append(("body", body))
            }
            members.append(("idempotency_key", .string(IdempotencyKey.random())))
            do { operation = try Operation(document: .object(members)) } catch {
                throw .unreadable(id: item.id, why: error.description)
            }
            do throws(Errno) {
                try rewriteFiled(
                    item.fileName, in: item.folder, document: Array((operation!.document.text + "\n").utf8),
                    payload: item.operation?.payload)
            } catch .noSuchFileOrDirectory {
                // Moved away since it was found (another spool-ctl retried or discarded it): say where it went.
                try check(MoveResult<Void>.gone, item)
            } catch {
                throw .io(path: displayPath(item.folder, item.fileName), error)
            }
        }
        var target = QueueName(id: item.id, state: nil)
        if let operation {
            // Rewritten by root, the file keeps its producer; by the spool's owner, it becomes theirs, and the
            // name says whose write it stays (`u=`): its producer's policy and order per key.
            let owner = (try? directory(item.folder).status(of: item.fileName).owner) ?? item.producer
            let producer = item.producer.flatMap { users.isProducer($0) ? $0 : nil } ?? owner
            target.state = RetryState(
                for: operation, orderMicroseconds: item.orderMicroseconds, scope: users.keyScope(of: producer))
            if let owner, let producer, owner != producer { target.state!.producer = producer }
            // It may have been sent before it was filed: no later write may be merged into it or cancel it.
            target.state!.lastError = RetryState.retriedToken
        }
        let moved = unfile(item.fileName, id: item.id, from: item.folder, as: target.fileName)
        try check(moved, item)
        return target.fileName
    }

    /// Clears the retry time of a deferred operation in `new/`, so the next run sends it. Returns its new name,
    /// or nil when it was not deferred.
    package func sendNow(_ item: QueueItem) throws(ControlError) -> FileName? {
        guard item.folder == .new, let target = Spool.dueNow(item.fileName) else { return nil }
        try restate(item, as: target)
        return target
    }

    /// Removes an operation (and its reason) for good. Refuses one that a worker is sending.
    package func discard(_ item: QueueItem) throws(ControlError) {
        if item.folder == .cur, let claim = item.claim {
            throw .inFlight(id: item.id, pid: claim.owner.pid, host: claim.owner.host)
        }
        try check(discard(item.fileName, id: item.id, in: item.folder), item)
    }

    /// Puts a waiting operation on hold (`s=held` in its name): no run sends it, nor what follows it in its
    /// key, until `release`. A name not yet admitted gets the state admission would give it. Returns the new
    /// name, or nil when it was on hold already.
    package func hold(_ item: QueueItem) throws(ControlError) -> FileName? {
        try requireWaiting(item)
        var name = QueueName(id: item.id, state: QueueName(item.fileName)?.state)
        if name.state == nil {
            guard let operation = item.operation else {
                throw .unreadable(id: item.id, why: item.problem ?? "its document cannot be read")
            }
            name.state = RetryState(
                for: operation, orderMicroseconds: item.orderMicroseconds, scope: users.keyScope(of: item.producer))
        }
        guard !name.state!.held else { return nil }
        name.state!.held = true
        try restate(item, as: name.fileName)
        return name.fileName
    }

    /// Takes an operation off hold, its order stamp, attempts and retry time kept, so it goes in its place in
    /// its key. Returns the new name, or nil when it was not on hold.
    package func release(_ item: QueueItem) throws(ControlError) -> FileName? {
        try requireWaiting(item)
        guard var name = QueueName(item.fileName), name.state?.held == true else { return nil }
        name.state!.held = false
        try restate(item, as: name.fileName)
        return name.fileName
    }

    /// Only a waiting operation can be held or released: one being sent is refused as `discard` refuses it.
    private func requireWaiting(_ item: QueueItem) throws(ControlError) {
        if item.folder == .cur, let claim = item.claim {
            throw .inFlight(id: item.id, pid: claim.owner.pid, host: claim.owner.host)
        }
        guard item.folder == .new else { throw .notWaiting(id: item.id, folder: item.folder) }
    }

    /// Renames a waiting operation under the lock.
    private func restate(_ item: QueueItem, as target: FileName) throws(ControlError) {
        try check(withLock { transaction in transaction.restate(item.fileName, as: target) }, item)
    }

    /// Throws unless the move on `item` was made; when the operation was gone, says where it went meanwhile.
    private func check<Moved>(_ result: MoveResult<Moved>, _ item: QueueItem) throws(ControlError) {
        try ControlError.check(result, item) { () throws(ControlError) -> QueueItem? in
            // `locate` lists one folder after another: an operation moving between two of them (a deferral, from
            // cur/ back to new/) is seen in neither, so it is looked for a second time before it is called gone.
            for _ in 0..<2 {
                do {
                    if let found = try locate(item.id) { return found }
                } catch {
                    throw .io(path: path, error as? Errno ?? Errno(rawValue: EIO))
                }
            }
            return nil
        }
    }
}
