import Glibc
import SpoolDocument
import SpoolNames
import SpoolSystem
import SpoolTransport

extension Spool {
    /// maildir's rule: a file left in `tmp/` this long is an abandoned write.
    package static let temporaryFileLifetimeSeconds: Int64 = 36 * 3600

    /// `--lease` unless given: how long another host's claim is kept before it is presumed dead, five
    /// minutes longer than a request may take (`--timeout`), so that a claim whose request is in flight is
    /// never taken.
    package static func defaultLeaseSeconds(timeoutSeconds: Double) -> Int64 { Int64(timeoutSeconds) + 300 }

    /// Removes files from `tmp/` not modified for `lifetimeSeconds`, and second names left in `tmp/` by a
    /// `link` + `unlink` move cut short (their other name is the operation). Hidden names and directories
    /// are left alone.
    @discardableResult
    package func cleanTemporaryFiles(
        olderThanSeconds lifetimeSeconds: Int64 = Spool.temporaryFileLifetimeSeconds,
        nowSeconds: Int64 = Timestamp.nowSeconds(), log: Log = .silent
    ) throws(SystemCallError) -> Int {
        var removed = 0
        var names: [FileName] = []
        do {
            try forEachEntry(in: .tmp) { name, _ in if !name.isHidden { names.append(name) } }
        } catch {
            throw SystemCallError("list", "\(path)/tmp", error)
        }
        // Opened only when there is something to look at: an empty tmp/ costs its listing alone.
        guard !names.isEmpty else { return 0 }
        let tmp = directory(.tmp)
        for name in names {
            guard let status = try? tmp.status(of: name), !status.isDirectory else { continue }
            // A delivered operation retired here (`retire`) belongs to its worker while that lives (a claim
            // made on another host cannot be checked, and waits for the 36 hours); once its worker is dead,
            // it is left over from a crash and goes at once, however large.
            let retiredBy = QueueName(name)?.claim?.owner
            let workerAlive = retiredBy?.isAlive
            if workerAlive == true { continue }
            let leftByCrash = workerAlive == false
            let abandoned = nowSeconds - status.modifiedMicroseconds / 1_000_000 > lifetimeSeconds
            let twin = status.linkCount > 1 && nowSeconds - status.changedSeconds >= Spool.twinSettleSeconds
            guard leftByCrash || abandoned || twin else { continue }
            do throws(Errno) {
                try removeTemporary(name)
                removed += 1
                if leftByCrash, let worker = retiredBy {
                    log.notice("removed \(displayPath(.tmp, name)): delivered, left by dead worker pid \(worker.pid)")
                } else if abandoned {
                    log.notice("removed abandoned \(displayPath(.tmp, name))")
                }
            } catch .noSuchFileOrDirectory {
            } catch {
                throw SystemCallError("remove", displayPath(.tmp, name), error)
            }
        }
        return removed
    }
}

/// Recovery under the spool lock: dead workers' claims, and filings a crash cut short.
extension Spool.Transaction {
    /// Returns claims whose owner is gone to `new/`, keeping their retry state (the attempt count included).
    ///
    /// On this host a claim's owner is checked directly (pid present with the same start time), which is
    /// exact, so a live claim is never stolen however long its request takes. A claim made on another host
    /// (a spool on shared storage) cannot be checked and is recovered once it is older than `leaseSeconds`.
    /// A stale claim that is one of two names of a move cut short keeps only the name the move was heading to.
    /// Entries in `cur/` that are not claims are left alone for `spool-ctl check` to report.
    @discardableResult
    package func recoverStaleClaims(leaseSeconds: Int64, nowSeconds: Int64 = Timestamp.nowSeconds(),
                                   log: Log = .silent) throws(SystemCallError) -> [String] {
        var staleClaims: [(FileName, QueueName, Claim)] = []
        do {
            try spool.forEachEntry(in: .cur) { name, _ in
                let cur = spool.directory(.cur)
                guard !name.isHidden, let queued = QueueName(name), let claim = queued.claim else { return }
                // Another host's claim is stale once both its stamp and the file's last touch are older than
                // the lease: a worker uploading a payload touches the file while it sends.
                let stale = claim.owner.isAlive.map { !$0 }
                    ?? (nowSeconds - claim.since > leaseSeconds
                        && (try? cur.status(of: name)).map {
                            nowSeconds - $0.modifiedMicroseconds / 1_000_000 > leaseSeconds
                        }
                            ?? true)
                if stale { staleClaims.append((name, queued, claim)) }
            }
        } catch {
            throw SystemCallError("list", "\(spool.path)/cur", error)
        }
        var recovered: [String] = []
        let cur = staleClaims.isEmpty ? FileDescriptor(rawValue: -1) : spool.directory(.cur)
        for (name, queued, claim) in staleClaims {
            if let status = try? cur.status(of: name), status.linkCount > 1 {
                let resolution: Spool.TwinResolution
                switch resolveTwin(.cur, name, nowSeconds: nowSeconds, log: log) {
                case let .moved(resolved): resolution = resolved
                case .gone: continue
                case let .fault(fault): throw fault
                }
                // Too young to tell: returning it now could give the operation a third name.
                if resolution == .removedThis || resolution == .tooYoung { continue }
            }
            // A parsed claim always carries its retry state: the claim suffix follows it. Its worker may have
            // sent it before dying: it comes back saying so, so that no later write folds into it or cancels it.
            switch unclaim(QueueEntry(fileName: name, name: queued), state: queued.state!.interrupted) {
            case .moved:
                recovered.append(queued.id)
                log.notice("recovered \(queued.id) from dead worker pid \(claim.owner.pid) on \(claim.owner.host)")
            case .gone:
                break // Another worker recovered it first.
            case let .fault(fault):
                throw fault
            }
        }
        if !recovered.isEmpty {
            do { try spool.directory(.new).sync() } catch { throw SystemCallError("fsync", "\(spool.path)/new", error) }
        }
        return recovered
    }

    /// Completes filings cut short by a crash: a reason `ID.why` in `failed/` or `conflict/` without `ID`.
    /// When the entry its `source:` names is still there, the move is made (the decision to file was);
    /// when that entry is gone too, the operation was retried or discarded and the stale reason is removed.
    /// Reasons without `source:` (written by older versions) are left alone.
    @discardableResult
    package func finishFilings(log: Log = .silent) throws(SystemCallError) -> Int {
        var finished = 0
        for folder in [Spool.Folder.failed, .conflict] {
            var orphans: [String] = []
            do {
                try spool.forEachEntry(in: folder) { name, _ in
                    guard !name.isHidden, let text = name.string, text.hasSuffix(".why") else { return }
                    let dir = spool.directory(folder)
                    let id = String(text.dropLast(4))
                    if case .failure(.noSuchFileOrDirectory) = Result(catching: { () throws(Errno) in
                        try dir.status(of: FileName(id))
                    }) {
                        orphans.append(id)
                    }
                }
            } catch {
                throw SystemCallError("list", "\(spool.path)/\(folder.rawValue)", error)
            }
            let dir = orphans.isEmpty ? FileDescriptor(rawValue: -1) : spool.directory(folder)
            for id in orphans {
                guard let (from, source) = spool.reason(of: id, in: folder).source, from == .new || from == .cur else {
                    continue
                }
                // Only a filing whose worker is gone: a claim's owner is checked directly; otherwise (an entry
                // in new/, a claim made on another host) the reason must be older than any filing takes.
                let ownerAlive = from == .cur ? QueueName(source)?.claim?.owner.isAlive : nil
                if ownerAlive == true { continue }
                if ownerAlive == nil {
                    guard let status = try? dir.status(of: FileName(id + ".why")),
                          Timestamp.nowSeconds() - status.changedSeconds >= Spool.twinSettleSeconds else { continue }
                }
                switch finishFiling(source, from: from, to: folder, as: id) {
                case .moved:
                    finished += 1
                    log.notice(
                        "finished filing \(id) in \(folder.rawValue)/ (a worker died between writing the reason and "
                            + "moving the operation)"
                    )
                case .gone:
                    // The source is gone (or the filing finished): check that the operation did not arrive meanwhile.
                    guard (try? dir.status(of: FileName(id))) == nil else { continue }
                    removeReason(of: id, in: folder)
                    log.detail("removed the stale reason \(folder.rawValue)/\(id).why")
                case let .fault(fault):
                    throw fault
                }
            }
        }
        return finished
    }
}
