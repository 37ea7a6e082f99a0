import SpoolNames
import SpoolSystem

extension Spool {
    /// How long a plain-named file in `new/` that does not parse is left alone: it may be a producer that
    /// wrote straight into `new/` instead of through `tmp/` and has not finished.
    package static let settleMicroseconds: Int64 = 5_000_000

    /// The operations waiting in `new/`, for programs other than the sender (the bench, the tests' helper),
    /// taken in by the way a run takes them in: files dropped under plain names are admitted by
    /// `admitDropped` (read and checked without the lock, renamed to `ID:STATE` under short takes of it; what
    /// can never be sent is filed in `failed/`), then every name with a retry state goes through
    /// `Transaction.intake` under the lock, as the planner's listing does. Hidden names are ignored. The
    /// first fault met is thrown, after the rest were taken in.
    package func scanNew(maxSize: Int = Spool.defaultMaxDocumentSize, log: Log = .silent,
                         _ body: (QueueEntry) throws -> Void) throws {
        var dropped: [FileName] = []
        try forEachEntry(in: .new) { fileName, _ in
            let name = QueueName(fileName)
            if !fileName.isHidden, name?.state == nil || name?.claim != nil { dropped.append(fileName) }
        }
        var faults: [SystemCallError] = []
        admitDropped(
            dropped, maxSize: maxSize, maxPayload: Spool.defaultMaxPayloadSize, log: log, isStopping: { false },
            fault: { faults.append($0) })
        var stated: [FileName] = []
        try forEachEntry(in: .new) { fileName, _ in
            let name = QueueName(fileName)
            if !fileName.isHidden, name?.state != nil, name?.claim == nil { stated.append(fileName) }
        }
        let admitted = try withLock { transaction throws(SystemCallError) in
            var entries: [QueueEntry] = []
            for fileName in stated {
                if let entry = try transaction.intake(fileName, maxSize: maxSize, log: log) { entries.append(entry) }
            }
            return entries
        }
        if let fault = faults.first { throw fault }
        for entry in admitted { try body(entry) }
    }

    /// Names dropped in `new/` in the order they were written (modification time, then name), which their order
    /// stamps will say once admitted: a dropped create is admitted before the merge or DELETE that follows it.
    package func inWrittenOrder(_ names: [FileName]) -> [FileName] {
        guard names.count > 1 else { return names }
        let new = directory(.new)
        return names.map { ($0, (try? new.status(of: $0).modifiedMicroseconds) ?? 0) }
            .sorted { ($0.1, $0.0) < ($1.1, $1.0) }.map(\.0)
    }

    /// Files a name in `new/` that is not a valid operation id (or is claimed there) in `failed/`; the fault,
    /// if the filing met one.
    package func fileBadName(_ fileName: FileName, log: Log) -> SystemCallError? {
        let why = Rejection.badName(OperationID.whyInvalid(fileName))
        return file(rejected: fileName, in: .new, id: OperationID.sanitized(fileName), why, log: log).fault
    }

    /// Files an entry that can never be sent in `failed/` with the reason `rejection` gives, logging it.
    @discardableResult
    package func file(
        rejected fileName: FileName, in folder: Folder, id: String, _ rejection: Rejection, attempts: Int = 0,
        log: Log
    ) -> MoveResult<String> {
        var reason = [("reason", rejection.description), ("error", rejection.token)]
        if fileName.string.map({ QueueName(FileName($0))?.id != id }) ?? true {
            reason.append(("original-name", fileName.escaped))
        }
        if attempts > 0 { reason.append(("attempts", String(attempts))) }
        let filed = file(fileName, from: folder, to: .failed, id: id, reason: FilingReason(reason), log: log)
        // Another user's directory dropped into a shared spool's new/ cannot be moved by the sender (a
        // directory's move needs write permission on it): its owner's doing, left where it is, not a fault.
        if case let .fault(fault) = filed, fault.error == .permissionDenied,
           let status = try? directory(folder).status(of: fileName), status.isDirectory,
           status.owner != UserDatabase.effectiveUser
        {
            log.warning("\(displayPath(folder, fileName)): \(rejection.description), dropped by "
                + "\(UserDatabase.display(status.owner)), who must remove it: the sender may not move it")
            return .gone
        }
        return filed
    }
}

extension Spool.Transaction {
    /// Takes one name with a retry state found in `new/`, returned with its lane's key; one that is not a
    /// valid id is filed in `failed/`. A plain name is not this method's: `Spool.admitDropped` admits it.
    /// Returns nil when there is nothing to send. Throws when the spool, not the file, is at fault: the file
    /// then stays where it is.
    package func intake(
        _ fileName: FileName, maxSize: Int = Spool.defaultMaxDocumentSize,
        maxPayload: Int64 = Spool.defaultMaxPayloadSize, log: Log = .silent
    ) throws(SystemCallError) -> QueueEntry? {
        guard let name = QueueName(fileName), name.claim == nil else {
            if let fault = spool.fileBadName(fileName, log: log) { throw fault }
            return nil
        }
        // Gone since it was listed, or a plain name: nothing to note.
        guard let state = name.state, let lane = try laneKey(state.keyHash, of: fileName) else { return nil }
        return QueueEntry(fileName: fileName, name: name, laneKey: lane)
    }

    /// `Spool.laneKey` of a name in `new/`, a fault said with its path.
    private func laneKey(_ keyHash: UInt64, of fileName: FileName) throws(SystemCallError) -> UInt64? {
        do throws(Errno) { return try spool.laneKey(keyHash, of: fileName, in: .new) } catch {
            throw SystemCallError("look up", spool.displayPath(.new, fileName), error)
        }
    }

    /// Admits a dropped file read and checked by `Spool.readDropped`: folded into what waits on its key (a
    /// `merge` or DELETE), or renamed to `ID:STATE`. Nil when folded, or when its name no longer holds the file
    /// that was read, unchanged: another worker took it in first (a merge folded twice would undo a later
    /// change), or its producer replaced it, to be read again in the next round.
    package func admit(_ dropped: Spool.Dropped, log: Log) throws(SystemCallError) -> QueueEntry? {
        let (fileName, operation) = (dropped.fileName, dropped.operation)
        do throws(Errno) {
            guard dropped.isSameFile(as: try spool.directory(.new).status(of: fileName)) else { return nil }
        } catch .noSuchFileOrDirectory {
            return nil
        } catch {
            throw SystemCallError("look up", spool.displayPath(.new, fileName), error)
        }
        // A dropped `merge` or DELETE folds into what waits on its key as one from spool-enqueue does. Merge
        // patches are idempotent: a crash before the dropped file is removed only applies it again.
        var notMergedInto: String?
        switch try fold(operation, before: dropped.modified, log: log) {
        case let .folded(folded):
            if case let .fault(fault) = removeFolded(fileName) { throw fault }
            if case let .merged(into) = folded {
                log.notice("\(dropped.id) (\(operation.summary)): merged into \(into)")
            }
            return nil
        case .queue: break
        case let .queueNotMerged(into): notMergedInto = into
        }
        let state = RetryState(
            for: operation, orderMicroseconds: dropped.modified, scope: spool.users.keyScope(of: operation.producer))
        let name = QueueName(id: dropped.id, state: state)
        switch admit(fileName, as: name.fileName) {
        case .moved: break
        case .gone: return nil
        case let .fault(fault): throw fault
        }
        if let into = notMergedInto {
            log.warning("\(dropped.id) (\(operation.summary)): not merged into \(into): this file system cannot "
                + "exchange two names atomically; it is sent as its own write")
        }
        log.detail("admitted \(dropped.id)")
        return QueueEntry(
            fileName: name.fileName, name: name, laneKey: spool.laneKey(state.keyHash, producer: operation.producer))
    }
}
