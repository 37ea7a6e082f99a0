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
            let twin = status.linkCount > 1
                && !SharedStorage.isInMotion(changedSeconds: status.changedSeconds, nowSeconds: nowSeconds)
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
    /// Entries in `cur/` that are not claims are left alone for `spool-ctl check` to report. `unchanged`, when
    /// given, gets the names listed in `cur/` when none of them was stale, so none moved: the light front plans
    /// from them instead of listing `cur/` again.
    @discardableResult
    package func recoverStaleClaims(leaseSeconds: Int64, nowSeconds: Int64 = Timestamp.nowSeconds(),
                                   log: Log = .silent, unchanged: (([FileName]) -> Void)? = nil)
        throws(SystemCallError) -> [String]
    {
        var staleClaims: [(FileName, QueueName, Claim)] = [], seen: [FileName] = []
        do {
            try spool.forEachEntry(in: .cur) { name, _ in
                let cur = spool.directory(.cur)
                if unchanged != nil, !name.isHidden { seen.append(name) }
                guard !name.isHidden, let queued = QueueName(name), let claim = queued.claim else { return }
                let stale = SharedStorage.isStale(claim, leaseSeconds: leaseSeconds, nowSeconds: nowSeconds) {
                    (try? cur.status(of: name)).map { $0.modifiedMicroseconds / 1_000_000 }
                }
                if stale { staleClaims.append((name, queued, claim)) }
            }
        } catch {
            throw SystemCallError("list", "\(spool.path)/cur", error)
        }
        if staleClaims.isEmpty {
            unchanged?(seen)
            return []
        }
        var recovered: [String] = []
        let cur = spool.directory(.cur)
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

    /// Completes filings cut short by a crash: a reason `ID.why` in `failed/` or `conflict/` without `ID`,
    /// found from the markers such changes leave while they are made (`Spool+FilingMarker.swift`), not by
    /// listing those folders. When the entry the reason's `source:` names is still there, the move is made
    /// (the decision to file was); when that entry is gone too, the operation was retried or discarded and
    /// the stale reason is removed. A marker goes once nothing it marks is left to finish.
    @discardableResult
    package func finishFilings(log: Log = .silent) throws(SystemCallError) -> Int {
        let nowSeconds = Timestamp.nowSeconds()
        let marked: [(folder: Spool.Folder, id: String, age: Int64)]
        do { marked = try spool.markedFilings(nowSeconds: nowSeconds) } catch {
            throw SystemCallError("list", spool.path, error)
        }
        var finished = 0
        for (folder, id, age) in marked {
            let (done, pending, settled) = try finishFiling(of: id, in: folder, log: log)
            finished += done
            // A young marker with nothing found may be a filing whose reason is not yet in place: kept.
            if !pending && (settled || age >= SharedStorage.twinSettleSeconds) { spool.clearFiling(folder, id) }
        }
        return finished
    }

    /// Finishes what is left of the filings of `id` in `folder`: its names `ID`, `ID.1`, … (as `file` chooses
    /// them) whose reason is there without the operation. Returns how many were finished, whether one must
    /// wait (its worker lives, or it is too young to tell), and whether one was found complete or settled.
    private func finishFiling(of id: String, in folder: Spool.Folder, log: Log) throws(SystemCallError)
        -> (finished: Int, pending: Bool, settled: Bool)
    {
        let dir = spool.directory(folder)
        var finished = 0, pending = false, settled = false
        for suffix in 0..<1000 {
            let filedAs = suffix == 0 ? id : "\(id).\(suffix)"
            let reasonStatus = try? dir.status(of: FileName(filedAs + ".why"))
            let reasonThere = reasonStatus != nil
            let operationThere = (try? dir.status(of: FileName(filedAs))) != nil
            if !reasonThere && !operationThere { break }
            if operationThere {
                settled = settled || reasonThere
                continue
            }
            guard let (from, source) = spool.reason(of: filedAs, in: folder).source, from == .new || from == .cur else {
                continue
            }
            // Only a filing whose worker is gone: a claim's owner is checked directly; otherwise (an entry
            // in new/, a claim made on another host) the reason must be older than any filing takes.
            let ownerAlive = from == .cur ? QueueName(source)?.claim?.owner.isAlive : nil
            let young = reasonStatus.map { SharedStorage.isInMotion(changedSeconds: $0.changedSeconds) }
            if ownerAlive == true || ownerAlive == nil && young != false {
                pending = true
                continue
            }
            settled = true
            switch finishFiling(source, from: from, to: folder, as: filedAs) {
            case .moved:
                finished += 1
                log.notice(
                    "finished filing \(filedAs) in \(folder.rawValue)/ (a worker died between writing the reason "
                        + "and moving the operation)")
            case .gone:
                // The source is gone (or the filing finished): check that the operation did not arrive meanwhile.
                guard (try? dir.status(of: FileName(filedAs))) == nil else { continue }
                removeReason(of: filedAs, in: folder)
                log.detail("removed the stale reason \(folder.rawValue)/\(filedAs).why")
            case let .fault(fault):
                throw fault
            }
        }
        return (finished, pending, settled)
    }
}
