import Glibc
import SpoolDocument
import SpoolNames
import SpoolSystem

/// Every change of state of a queue file, and nothing else: each is one of the renames (or, for what is
/// finished, unlinks) below, Postfix's `mail_queue_rename` in spirit. The states and who may move between
/// them are tabled in ARCHITECTURE.md. A transition that could reorder a key's operations if two workers
/// raced it is a method of `Spool.Transaction`, which only the spool lock's holder has.
extension Spool {
    /// tmp/NAME → new/ID:STATE, the last step of an enqueue. No lock: a new name races no one.
    package func publish(_ temporary: FileName, as final: FileName) throws(Errno) {
        try move(temporary, from: .tmp, to: .new, as: final)
    }

    /// tmp/NAME → gone: a write abandoned by its producer, or one of ours that failed.
    package func removeTemporary(_ name: FileName) throws(Errno) {
        try directory(.tmp).unlink(name)
    }

    /// cur/NAME@CLAIM → gone: done, or replaced by a newer write (coalesced). Not fsynced: if a crash undid
    /// the unlink, the operation would be sent again with the same Idempotency-Key, which the server answers
    /// from its record.
    package func complete(_ claimed: QueueEntry) -> MoveResult<Void> {
        if claimed.state.attempts > 0 { forgetDeferral(of: claimed.id) }
        return .of("remove the delivered operation", displayPath(.cur, claimed.fileName)) { () throws(Errno) in
            try directory(.cur).unlink(claimed.fileName)
        }
    }

    /// cur/NAME@CLAIM → tmp/NAME@CLAIM: done, out of its key's way at the cost of a rename, its removal left
    /// for later (`removeTemporary`, by the worker's removals threads). Freeing a file's blocks can take far
    /// longer than a rename (ext4 mounted `discard` waits for the disk in `unlinkat`); once in `tmp/`, the
    /// file is never sent again, and what a crash leaves there housekeeping removes with the rest of `tmp/`.
    /// Not fsynced, as `complete`.
    package func retire(_ claimed: QueueEntry) -> MoveResult<Void> {
        if claimed.state.attempts > 0 { forgetDeferral(of: claimed.id) }
        return .of("retire the delivered operation", displayPath(.cur, claimed.fileName)) { () throws(Errno) in
            try move(claimed.fileName, from: .cur, to: .tmp, as: claimed.fileName)
        }
    }

    /// new/NAME or cur/NAME@CLAIM → failed/ID or conflict/ID, with its reason beside it as `ID.why`, said in
    /// the log: the one way into `failed/` and `conflict/`, for intake, workers and recovery alike. Moved
    /// gives the name it was filed under; gone, when another worker moved the entry first. No lock: a filed
    /// operation only lets the rest of its key go on, as its completion would. `what` says what the operation
    /// does (`PUT https://…`), when it could be read, for the log line.
    ///
    /// The reason comes first, so that the pair is complete after a crash at any step:
    /// 1. the reason, naming the entry it explains (`source:`), is written to `tmp/` and fsynced;
    /// 2. it is renamed into the destination as `ID.why`, which also reserves the name `ID`;
    /// 3. the operation is renamed to `ID`; 4. the destination is fsynced.
    /// A crash after 2 leaves a reason whose operation has not moved: `finishFilings` completes the move.
    /// When a step fails, the reason is taken back and the operation stays where it was; if even that
    /// fails, the reason stays and recovery finishes the filing later: the decision stands either way.
    /// A failed fsync of the destination is a fault, although the operation has moved (and is logged so).
    package func file(_ name: FileName, from folder: Folder, to destination: Folder, id: String, reason: FilingReason,
                     what summary: String? = nil, about fields: LogFields = LogFields(), log: Log)
        -> MoveResult<String>
    {
        var reason = reason
        // Who dropped it: the owner of its file, which a producer cannot forge (spool(5), shared spools), or
        // the producer whose write the owner rewrote, kept by uid for a later retry.
        if reason["dropped-by"] == nil, let owner = try? directory(folder).status(of: name).owner {
            let producer = users.producer(owner: owner, name: name)
            reason.fields.append(("dropped-by", UserDatabase.display(producer)))
            if producer != owner { reason.fields.append(("producer-uid", String(producer))) }
        }
        // A deferred operation's last deferral goes into its filed reason: an expired one says what kept it.
        if folder == .new || folder == .cur, let state = QueueName(name)?.state, state.attempts > 0 {
            reason = reason.adding(lastDeferral: deferral(of: id))
            forgetDeferral(of: id)
        }
        let filed: String
        // Marked first: housekeeping finishes a filing cut short from its marker (Spool+FilingMarker.swift).
        markFiling(destination, id)
        do {
            guard let moved = try placeFiling(name, from: folder, to: destination, id: id, reason: reason) else {
                clearFiling(destination, id)
                return .gone
            }
            filed = moved
        } catch {
            return .fault(SystemCallError("file in \(destination.rawValue)/", displayPath(folder, name), error))
        }
        CrashPoint.reach("file.moved")
        // The id says which operation; a name that is not a queue name is shown as it was.
        var shown = QueueName(name)?.id == id ? id : "\(folder.rawValue)/\(name.escaped)"
        if let summary { shown += " (\(summary))" }
        log.warning("\(shown) -> \(destination.rawValue)/\(filed): \(reason["reason"] ?? reason.fields.first?.1 ?? "")",
                    fields.filed(id, in: destination.rawValue, status: reason["status"]))
        do { try directory(destination).sync() } catch {
            return .fault(SystemCallError("fsync", "\(path)/\(destination.rawValue)", error))
        }
        clearFiling(destination, id)
        return .moved(filed)
    }

    /// Steps 1 to 3 of `file`: the name filed under, or nil when the entry had gone.
    private func placeFiling(_ name: FileName, from folder: Folder, to destination: Folder, id: String,
                             reason: FilingReason) throws(Errno) -> String? {
        let target = directory(destination)
        var suffix = 0
        while true {
            let filedAs = suffix == 0 ? id : "\(id).\(suffix)"
            suffix += 1
            // An earlier operation with the same id was filed and not yet cleared: keep both.
            if suffix < 1000, (try? target.status(of: FileName(filedAs))) != nil { continue }
            let why = FileName(filedAs + ".why")
            let text = reason.text(
                id: filedAs, folder: destination, source: folder, name: name, at: Timestamp.nowSeconds())
            do { try placeReason(why, in: destination, contents: text) } catch .fileExists where suffix < 1000 {
                continue
            }
            CrashPoint.reach("file.reason-placed")
            do {
                try move(name, from: folder, to: destination, as: FileName(filedAs))
            } catch .fileExists where suffix < 1000 {
                // `finishFilings` may be completing this very filing by link: then the name is ours.
                if let mine = try? directory(folder).status(of: name),
                    let there = try? target.status(of: FileName(filedAs)),
                    mine.inode == there.inode, mine.device == there.device
                {
                    return filedAs
                }
                try? target.unlink(why)
                continue
            } catch .noSuchFileOrDirectory {
                // Moved by another worker, or by `finishFilings` completing this very filing.
                if (try? target.status(of: FileName(filedAs))) != nil { return filedAs }
                try? target.unlink(why)
                return nil
            } catch {
                try? target.unlink(why)
                throw error
            }
            return filedAs
        }
    }

    /// tmp/UNIQUE.why → FOLDER/ID.why: a reason, written and fsynced, then renamed in without replacing
    /// anything (EEXIST when the name is taken).
    package func placeReason(_ name: FileName, in folder: Folder, contents: [UInt8]) throws(Errno) {
        let temporary = FileName(UniqueName.next().id + ".why")
        let tmp = directory(.tmp)
        let fd = try tmp.open(temporary, O_WRONLY | O_CREAT | O_EXCL, mode: Spool.fileMode)
        do {
            defer { fd.close() }
            try fd.writeAll(contents)
            try fd.sync()
            CrashPoint.reach("file.reason-written")
            try move(temporary, from: .tmp, to: folder, as: name)
        } catch {
            try? tmp.unlink(temporary)
            throw error
        }
    }

    /// failed/ID → failed/ID with a new document (`spool-ctl retry --if-match`): written in `tmp/`, fsynced,
    /// then exchanged with the old one, which is removed, so that the operation is in one place with one document
    /// at every step. An exchange, not a rename over the name: when another spool-ctl moved the operation away
    /// meanwhile it fails with `noSuchFileOrDirectory`, where a rename would bring a second copy back to life.
    /// Where the file system cannot exchange, a rename over the name. A payload (`payload`, where it lies in the
    /// old file) is copied after the new document's line.
    package func rewriteFiled(_ name: FileName, in folder: Folder, document: [UInt8], payload: PayloadSpan? = nil)
        throws(Errno)
    {
        let temporary = FileName(UniqueName.next().id)
        let tmp = directory(.tmp)
        do {
            let fd = try tmp.open(temporary, O_WRONLY | O_CREAT | O_EXCL, mode: users.writtenFileMode)
            defer { fd.close() }
            // Root's edit keeps the operation its producer's (and so under their policy and order).
            if UserDatabase.effectiveUser == 0, let producer = try? directory(folder).status(of: name).owner,
               producer != 0
            {
                try fd.changeOwner(to: producer)
            }
            try fd.writeAll(document)
            if let payload {
                let old = try directory(folder).open(name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
                defer { old.close() }
                try old.copy(payload.length, from: payload.offset, to: fd)
            }
            try fd.sync()
            do throws(Errno) {
                try tmp.exchange(temporary, with: name, in: directory(folder))
            } catch .invalidArgument, .notImplemented {
                try tmp.replace(temporary, in: directory(folder), as: name)
                return
            }
            // `temporary` now names the old document.
            try? tmp.unlink(temporary)
        } catch {
            try? tmp.unlink(temporary)
            throw error
        }
    }
}

/// The transitions under the spool lock. Each returns what the move came to: moved, gone (someone else moved
/// the file first, and owns it now), or a fault with what was being done and where.
extension Spool.Transaction {
    /// new/ID → new/ID:STATE: a file dropped under a plain name, admitted with its retry state.
    package func admit(_ plain: FileName, as stated: FileName) -> MoveResult<Void> {
        .of("admit", spool.displayPath(.new, plain)) { () throws(Errno) in
            try spool.move(plain, from: .new, to: .new, as: stated)
        }
    }

    /// new/NAME → cur/NAME@CLAIM, a name that records the owner. Exactly one of several competing workers
    /// wins; the others find it gone and move on.
    package func claim(
        _ entry: QueueEntry, owner: ProcessIdentity = .current, nowSeconds: Int64 = Timestamp.nowSeconds()
    )
        -> MoveResult<QueueEntry>
    {
        var claimed = entry.name
        let claim = Claim(owner: owner, since: nowSeconds)
        claimed.claim = claim
        // The claimed name is the waiting name plus the claim: no need to write the state out again.
        let fileName = FileName(bytes: entry.fileName.bytes + claim.suffix)
        return .of("claim", spool.displayPath(.new, entry.fileName)) { () throws(Errno) in
            try spool.move(entry.fileName, from: .new, to: .cur, as: fileName)
            return QueueEntry(fileName: fileName, name: claimed, laneKey: entry.laneKey)
        }
    }

    /// cur/NAME@CLAIM → new/ID:STATE': its owner dead (recovery fsyncs `new/` once after all of them, still under
    /// housekeeping's take of the lock), or, through `Spool.unclaim`, to retry later or stranded by a failing
    /// disk.
    package func unclaim(_ claimed: QueueEntry, state: RetryState) -> MoveResult<Void> {
        .of("return to new/", spool.displayPath(.cur, claimed.fileName)) { () throws(Errno) in
            try spool.move(claimed.fileName, from: .cur, to: .new, as: QueueName(id: claimed.id, state: state).fileName)
        }
    }

    /// new/NAME or cur/NAME@CLAIM → failed/ID or conflict/ID beside its reason: a filing a crash cut short
    /// after step 2, finished by recovery. Gone when the source is, or when `ID` exists (finished already).
    package func finishFiling(
        _ source: FileName, from folder: Spool.Folder, to destination: Spool.Folder, as id: String
    )
        -> MoveResult<Void>
    {
        let moved = MoveResult.of("finish filing", spool.displayPath(folder, source)) { () throws(Errno) in
            do throws(Errno) {
                try spool.move(source, from: folder, to: destination, as: FileName(id))
            } catch .fileExists {
                throw .noSuchFileOrDirectory
            }
        }
        guard moved.wasMoved else { return moved }
        return spool.syncFolder(destination)
    }

    /// FOLDER/ID.why → gone: a reason whose operation was retried or discarded.
    package func removeReason(of id: String, in folder: Spool.Folder) {
        try? spool.directory(folder).unlink(FileName(id + ".why"))
    }

    /// failed/ID or conflict/ID → new/ID:STATE, its reason removed under the same lock (so that recovery,
    /// which finishes filings, never sees the reason alone): through `Spool.unfile`, which fsyncs `new/` after.
    package func unfile(_ name: FileName, id: String, from folder: Spool.Folder, as target: FileName) -> MoveResult<
        Void
    > {
        let moved = MoveResult.of("retry", spool.displayPath(folder, name)) { () throws(Errno) in
            try spool.move(name, from: folder, to: .new, as: target)
        }
        if moved.wasMoved {
            // Still under the lock: a worker that reads the marker under it sees this move with it.
            spool.noteUnfiled()
            CrashPoint.reach("retry.moved")
            removeReason(of: id, in: folder)
        }
        return moved
    }

    /// new/ID[:STATE] → new/ID:STATE', the order stamp kept: no retry time (`spool-ctl retry --now`, `flush`),
    /// on hold or off it (`spool-ctl hold`, `release`). Under the lock, so a planner sees one name or the other.
    package func restate(_ name: FileName, as target: FileName) -> MoveResult<Void> {
        .of("rename", spool.displayPath(.new, name)) { () throws(Errno) in
            try spool.move(name, from: .new, to: .new, as: target)
        }
    }

    /// tmp/MERGED ⇄ new/NAME, then tmp/MERGED (now the old document) → gone: a merge patch taking effect. The
    /// exchange swaps the two files under their names at once, so `new/NAME` names the old document or the
    /// merged one at every instant, and a crash before the removal leaves only a stray in `tmp/` (removed
    /// when old, like any). False, and nothing moved, where the file system cannot exchange two names (EINVAL
    /// or ENOSYS from the exchange itself, not from the sync after it): the caller queues the write instead.
    package func supersede(_ name: FileName, with merged: FileName) -> MoveResult<Bool> {
        .of("merge into", spool.displayPath(.new, name)) { () throws(Errno) -> Bool in
            do throws(Errno) {
                try spool.directory(.tmp).exchange(merged, with: name, in: spool.directory(.new))
            } catch .invalidArgument, .notImplemented {
                return false
            }
            CrashPoint.reach("merge.exchanged")
            try? spool.removeTemporary(merged)
            try spool.directory(.new).sync()
            return true
        }
    }

    /// new/NAME → gone: a dropped write that was folded into what waits (merged, or a cancelling DELETE).
    package func removeFolded(_ name: FileName) -> MoveResult<Void> {
        .of("remove the folded write", spool.displayPath(.new, name)) { () throws(Errno) in
            try spool.directory(.new).unlink(name)
        }
    }

    /// FOLDER/NAME → gone, with its reason when filed: `spool-ctl discard`.
    package func discard(_ name: FileName, id: String, in folder: Spool.Folder) -> MoveResult<Void> {
        if folder == .new { spool.forgetDeferral(of: id) }
        let removed = MoveResult.of("remove", spool.displayPath(folder, name)) { () throws(Errno) in
            try spool.directory(folder).unlink(name)
        }
        if removed.wasMoved, folder == .failed || folder == .conflict { removeReason(of: id, in: folder) }
        return removed
    }

    /// One name of a file a crash left with two → gone, keeping the name the move was heading to (see
    /// `twin(of:)`). Filings and enqueues, which run without the lock, finish correctly when their source
    /// was removed for them.
    package func resolveTwin(_ folder: Spool.Folder, _ name: FileName, nowSeconds: Int64 = Timestamp.nowSeconds(),
                            log: Log = .silent) -> MoveResult<Spool.TwinResolution> {
        .of("remove the second name of", spool.displayPath(folder, name)) { () throws(Errno) in
            let status: FileStatus
            do throws(Errno) { status = try spool.directory(folder).status(of: name) } catch .noSuchFileOrDirectory {
                return .noTwin
            }
            guard status.linkCount == 2, let twin = try spool.twin(of: folder, name, status, nowSeconds: nowSeconds)
            else { return .noTwin }
            if twin.inMotion { return .tooYoung }
            let (dropFolder, dropName) = twin.dropsThisName ? (folder, name) : (twin.folder, twin.name)
            do throws(Errno) {
                try spool.directory(dropFolder).unlink(dropName)
                log.notice(
                    "removed \(spool.displayPath(dropFolder, dropName)), the second name of a move cut short by a crash"
                )
            } catch .noSuchFileOrDirectory {
                // Resolved by another worker, the same way.
            }
            return twin.dropsThisName ? .removedThis : .keptThis
        }
    }
}

extension Spool {
    /// cur/NAME@CLAIM → new/ID:STATE': a worker's claim given back, to retry later or stranded by a failing
    /// disk. The rename is made under the spool lock (a listing sees the operation in `cur/` or in `new/`, so no
    /// later write of its key passes it); `new/` is fsynced after the lock is let go, so that another worker
    /// waits for a rename, not for the disk. A failed fsync is a fault although the operation moved.
    package func unclaim(_ claimed: QueueEntry, state: RetryState) -> MoveResult<Void> {
        let moved = withLock { transaction in transaction.unclaim(claimed, state: state) }
        guard moved.wasMoved else { return moved }
        return syncFolder(.new)
    }

    /// failed/ID or conflict/ID → new/ID:STATE (`spool-ctl retry`): `Transaction.unfile` under the lock, then
    /// `new/` fsynced once it is let go, as `unclaim` does. A failed fsync is a fault although the operation moved.
    package func unfile(_ name: FileName, id: String, from folder: Folder, as target: FileName) -> MoveResult<Void> {
        // Marked outside the lock (its fsync must not hold the others up): a crash between the move and the
        // reason's removal leaves a stale reason, which the marker points housekeeping to.
        markFiling(folder, id)
        let moved = withLock { transaction in transaction.unfile(name, id: id, from: folder, as: target) }
        if !hasReason(of: id, in: folder) { clearFiling(folder, id) }
        guard moved.wasMoved else { return moved }
        return syncFolder(.new)
    }

    /// FOLDER/NAME → gone (`spool-ctl discard`): `Transaction.discard` under the lock, marked as `unfile` is
    /// when the operation was filed, for a crash between the removal and its reason's.
    package func discard(_ name: FileName, id: String, in folder: Folder) -> MoveResult<Void> {
        let filed = folder == .failed || folder == .conflict
        if filed { markFiling(folder, id) }
        let removed = withLock { transaction in transaction.discard(name, id: id, in: folder) }
        if filed, !hasReason(of: id, in: folder) { clearFiling(folder, id) }
        return removed
    }

    /// Fsyncs `folder` after a move into it: the move was made, but a failure is a fault all the same.
    fileprivate func syncFolder(_ folder: Folder) -> MoveResult<Void> {
        do { try directory(folder).sync() } catch {
            return .fault(SystemCallError("fsync", "\(path)/\(folder.rawValue)", error))
        }
        return .moved(())
    }
}
