import Glibc

extension Spool {
    /// Puts a filed operation back in `new/` with no attempts, keeping its idempotency key and its place in the
    /// order (an earlier attempt may have been applied with its answer lost). With `ifMatch`, the document's
    /// `if_match` is replaced and it gets a new idempotency key: it is a new request, and the server may have
    /// recorded the 412 under the old key. Returns the name it now has in `new/`.
    ///
    /// Every step leaves the operation in exactly one place: the new document replaces the old one in its
    /// folder by rename before the operation moves.
    public func retry(_ item: QueueItem, ifMatch: String? = nil) throws(ControlError) -> FileName {
        guard item.folder == .failed || item.folder == .conflict else { throw .notFiled(id: item.id, folder: item.folder) }
        var operation = item.operation
        if let ifMatch {
            guard let current = operation, case var .object(members) = current.document else {
                throw .unreadable(id: item.id, why: item.problem ?? "the document is not an operation")
            }
            members.removeAll { $0.key == "if_match" || $0.key == "idempotency_key" }
            members.append(("if_match", .string(ifMatch)))
            members.append(("idempotency_key", .string(IdempotencyKey.random())))
            do { operation = try Operation(document: .object(members)) } catch { throw .unreadable(id: item.id, why: error.description) }
            do throws(Errno) {
                try rewriteFiled(item.fileName, in: item.folder, document: Array((operation!.document.text + "\n").utf8))
            } catch {
                throw .io(path: displayPath(item.folder, item.fileName), error)
            }
        }
        var target = QueueName(id: item.id, state: nil)
        if let operation {
            target.state = RetryState(orderMicroseconds: item.orderMicroseconds, keyHash: OrderingKey.hash(operation.key), priority: operation.priority, dueSeconds: operation.notBefore ?? 0)
        }
        do throws(Errno) {
            try withLock { held throws(Errno) in try unfile(item.fileName, id: item.id, from: item.folder, as: target.fileName, held) }
        } catch {
            throw .io(path: displayPath(item.folder, item.fileName), error)
        }
        return target.fileName
    }

    /// Clears the retry time of a deferred operation in `new/`, so the next run sends it. Returns its new name,
    /// or nil when it was not deferred.
    public func sendNow(_ item: QueueItem) throws(ControlError) -> FileName? {
        guard item.folder == .new, let target = Spool.dueNow(item.fileName) else { return nil }
        do throws(Errno) {
            try withLock { held throws(Errno) in try makeDue(item.fileName, as: target, held) }
        } catch .noSuchFileOrDirectory {
            throw .notFound(item.id)
        } catch {
            throw .io(path: displayPath(.new, item.fileName), error)
        }
        return target
    }

    /// Clears the retry time of every deferred operation in `new/` whose last error is one of `errors`, under
    /// one lock: what a watcher does when the network changes. Order per key holds, since the order stamp
    /// stays. Returns how many were made due.
    /// The listing is made without the lock, which is held only for the renames: a name that moved
    /// meanwhile is skipped.
    public func makeDue(deferredBy errors: Set<String>, now: Int64 = Timestamp.now()) throws(Errno) -> Int {
        var targets: [(FileName, FileName)] = []
        try directory(.new).forEachEntry { fileName, _ in
            guard let state = QueueName(fileName)?.state, state.dueSeconds > now, let error = state.lastError, errors.contains(error),
                  let target = Spool.dueNow(fileName) else { return }
            targets.append((fileName, target))
        }
        guard !targets.isEmpty else { return 0 }
        return try withLock { held throws(Errno) in
            var made = 0
            for (name, target) in targets {
                do throws(Errno) { try makeDue(name, as: target, held) } catch .noSuchFileOrDirectory { continue }
                made += 1
            }
            return made
        }
    }

    /// The name of a deferred operation made due now (its retry time cleared, all else kept), or nil when it
    /// is not deferred.
    static func dueNow(_ fileName: FileName) -> FileName? {
        guard var name = QueueName(fileName), var state = name.state, state.dueSeconds > 0 else { return nil }
        state.dueSeconds = 0
        name.state = state
        return name.fileName
    }

    /// Removes an operation (and its reason) for good. Refuses one that a worker is sending.
    public func discard(_ item: QueueItem) throws(ControlError) {
        if item.folder == .cur, let claim = item.claim {
            throw .inFlight(id: item.id, pid: claim.owner.pid, host: claim.owner.host)
        }
        do throws(Errno) {
            try withLock { held throws(Errno) in try discard(item.fileName, id: item.id, in: item.folder, held) }
        } catch .noSuchFileOrDirectory {
            throw .notFound(item.id)
        } catch {
            throw .io(path: displayPath(item.folder, item.fileName), error)
        }
    }
}
