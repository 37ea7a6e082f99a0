import SpoolDocument
import SpoolNames
import SpoolSystem
import SpoolTransport

extension Spool {
    /// How long a plain-named file in `new/` that does not parse is left alone: it may be a producer that
    /// wrote straight into `new/` instead of through `tmp/` and has not finished.
    package static let settleMicroseconds: Int64 = 5_000_000

    /// Lists `new/`, calling `body` for every operation with retry state in its name.
    ///
    /// Files dropped under plain names are admitted on the way: read, checked, and renamed to `ID:STATE` with
    /// their key hash and modification time as order, so that later runs need only the listing. Entries that
    /// can never be sent are filed in `failed/` with the reason. Hidden names are ignored.
    package func scanNew(
        maxSize: Int = Spool.defaultMaxDocumentSize, nowMicroseconds: Int64 = Timestamp.nowMicroseconds(),
        log: Log = .silent, _ body: (QueueEntry) throws -> Void
    ) throws {
        var entries: [FileName] = [], dropped: [FileName] = []
        try forEachEntry(in: .new) { fileName, _ in
            guard !fileName.isHidden else { return }
            if QueueName(fileName)?.state == nil { dropped.append(fileName) } else { entries.append(fileName) }
        }
        entries += inWrittenOrder(dropped)
        let admitted = try withLock { transaction throws(SystemCallError) in
            var admitted: [QueueEntry] = []
            for fileName in entries {
                if let entry = try transaction.intake(
                    fileName, maxSize: maxSize, nowMicroseconds: nowMicroseconds, log: log)
                {
                    admitted.append(entry)
                }
            }
            return admitted
        }
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
    /// Takes one name found in `new/`: a name with retry state is returned as it is, a plain one is admitted,
    /// and one that is not a valid id is filed in `failed/`. Returns nil when there is nothing to send.
    /// Throws when the spool, not the file, is at fault: the file then stays where it is.
    package func intake(
        _ fileName: FileName, maxSize: Int = Spool.defaultMaxDocumentSize,
        maxPayload: Int64 = Spool.defaultMaxPayloadSize,
        nowMicroseconds: Int64 = Timestamp.nowMicroseconds(), log: Log = .silent
    ) throws(SystemCallError) -> QueueEntry? {
        guard let name = QueueName(fileName), name.claim == nil else {
            if let fault = spool.fileBadName(fileName, log: log) { throw fault }
            return nil
        }
        if let state = name.state {
            // Gone since it was listed: nothing to note.
            guard let lane = try laneKey(state.keyHash, of: fileName) else { return nil }
            return QueueEntry(fileName: fileName, name: name, laneKey: lane)
        }
        return try intakeDropped(
            fileName, id: name.id, maxSize: maxSize, maxPayload: maxPayload, nowMicroseconds: nowMicroseconds, log: log)
    }

    /// `Spool.laneKey` of a name in `new/`, a fault said with its path.
    private func laneKey(_ keyHash: UInt64, of fileName: FileName) throws(SystemCallError) -> UInt64? {
        do throws(Errno) { return try spool.laneKey(keyHash, of: fileName, in: .new) } catch {
            throw SystemCallError("look up", spool.displayPath(.new, fileName), error)
        }
    }

    /// Checks a plain-named file in `new/` and admits it with a retry state, or files it in `failed/`, all
    /// under the lock this transaction holds (`Spool.admitDropped` reads without it).
    private func intakeDropped(_ fileName: FileName, id: String, maxSize: Int, maxPayload: Int64,
                               nowMicroseconds: Int64, log: Log) throws(SystemCallError) -> QueueEntry? {
        switch try spool.readDropped(
            fileName, id: id, maxSize: maxSize, maxPayload: maxPayload, nowMicroseconds: nowMicroseconds, log: log)
        {
        case let .ready(dropped): return try admit(dropped, log: log)
        case .twin:
            if let fault = resolveTwin(.new, fileName, nowSeconds: nowMicroseconds / 1_000_000, log: log).fault {
                throw fault
            }
            return nil
        case .nothing: return nil
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
            for: operation, orderMicroseconds: dropped.modified, scope: spool.keyScope(of: operation.dropper))
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
            fileName: name.fileName, name: name, laneKey: spool.laneKey(state.keyHash, dropper: operation.dropper))
    }
}
