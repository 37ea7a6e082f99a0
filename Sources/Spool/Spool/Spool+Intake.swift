import SpoolDocument
import SpoolNames
import SpoolSystem
import SpoolTransport

extension Spool {
    /// How long a plain-named file in `new/` that does not parse is left alone: it may be a producer that
    /// wrote straight into `new/` instead of through `tmp/` and has not finished.
    public static let settleMicroseconds: Int64 = 5_000_000

    /// Lists `new/`, calling `body` for every operation with retry state in its name.
    ///
    /// Files dropped under plain names are admitted on the way: read, checked, and renamed to `ID:STATE` with
    /// their key hash and modification time as order, so that later runs need only the listing. Entries that
    /// can never be sent are filed in `failed/` with the reason. Hidden names are ignored.
    public func scanNew(maxSize: Int = Spool.defaultMaxDocumentSize, now: Int64 = Timestamp.nowMicroseconds(), log: Log = .silent,
                        _ body: (QueueEntry) throws -> Void) throws {
        var entries: [FileName] = []
        try directory(.new).forEachEntry { fileName, _ in
            if !fileName.isHidden { entries.append(fileName) }
        }
        let admitted = try withLock { held throws(SpoolFault) in
            var admitted: [QueueEntry] = []
            for fileName in entries {
                if let entry = try intake(fileName, maxSize: maxSize, now: now, log: log, held) { admitted.append(entry) }
            }
            return admitted
        }
        for entry in admitted { try body(entry) }
    }

    /// Takes one name found in `new/`: a name with retry state is returned as it is, a plain one is admitted,
    /// and one that is not a valid id is filed in `failed/`. Returns nil when there is nothing to send.
    /// Throws when the spool, not the file, is at fault: the file then stays where it is.
    public func intake(_ fileName: FileName, maxSize: Int = Spool.defaultMaxDocumentSize, now: Int64 = Timestamp.nowMicroseconds(),
                       log: Log = .silent, _ held: LockHeld) throws(SpoolFault) -> QueueEntry? {
        guard let name = QueueName(fileName), name.claim == nil else {
            try reject(fileName, in: .new, id: OperationID.sanitized(fileName), .badName(OperationID.whyInvalid(fileName)), log: log)
            return nil
        }
        if name.state != nil { return QueueEntry(fileName: fileName, name: name) }
        return try admit(fileName, id: name.id, maxSize: maxSize, now: now, log: log, held)
    }

    /// Checks a plain-named file in `new/` and gives it a retry state, or files it in `failed/`.
    package func admit(_ fileName: FileName, id: String, maxSize: Int, now: Int64, log: Log, _ held: LockHeld) throws(SpoolFault) -> QueueEntry? {
        let read: (operation: Operation, modified: Int64)?
        do {
            read = try readOperation(.new, fileName, maxSize: maxSize)
        } catch {
            guard case let .rejected(rejection) = error else {
                if case let .fault(fault) = error { throw fault }
                // Intake runs holding the lock: the one place where a second name may be removed.
                do { try resolveTwin(.new, fileName, now: now / 1_000_000, log: log, held) } catch {
                    throw SpoolFault("remove the second name of", displayPath(.new, fileName), error)
                }
                return nil
            }
            if case .invalid = rejection, let status = try? directory(.new).status(of: fileName),
               now - status.modifiedMicroseconds < Spool.settleMicroseconds {
                return nil
            }
            try reject(fileName, in: .new, id: id, rejection, log: log)
            return nil
        }
        guard let (operation, modified) = read else { return nil }
        let state = RetryState(for: operation, orderMicroseconds: modified)
        let name = QueueName(id: id, state: state)
        do {
            try admit(fileName, as: name.fileName, held)
        } catch .noSuchFileOrDirectory {
            return nil
        } catch {
            throw SpoolFault("admit", displayPath(.new, fileName), error)
        }
        log.detail("admitted \(id)")
        return QueueEntry(fileName: name.fileName, name: name)
    }

    /// Files an entry that can never be sent in `failed/` with its reason, logging what happened.
    /// Returns whether this call moved it (false when another worker moved it first); throws when the spool
    /// could not file it, which leaves it where it was.
    @discardableResult
    public func reject(_ fileName: FileName, in folder: Folder, id: String, _ rejection: Rejection, attempts: Int = 0, log: Log) throws(SpoolFault) -> Bool {
        var reason = [("reason", rejection.description), ("error", rejection.token)]
        if fileName.string.map({ QueueName(FileName($0))?.id != id }) ?? true {
            reason.append(("original-name", fileName.escaped))
        }
        if attempts > 0 { reason.append(("attempts", String(attempts))) }
        let (moved, fault) = file(fileName, from: folder, to: .failed, id: id, reason: FilingReason(reason), log: log)
        if let fault { throw fault }
        return moved
    }
}
