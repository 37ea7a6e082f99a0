import Glibc
import SpoolDocument
import SpoolNames
import SpoolSystem
import SpoolTransport

extension Spool {
    /// maildir's rule: a file left in `tmp/` this long is an abandoned write.
    public static let temporaryFileLifetime: Int64 = 36 * 3600

    /// Returns claims whose owner is gone to `new/`, keeping their retry state (the attempt count included).
    ///
    /// On this host a claim's owner is checked directly (pid present with the same start time), which is
    /// exact, so a live claim is never stolen however long its request takes. A claim made on another host
    /// (a spool on shared storage) cannot be checked and is recovered once it is older than `lease` seconds.
    /// A stale claim that is one of two names of a move cut short keeps only the name the move was heading to.
    /// Entries in `cur/` that are not claims are left alone for `spool-ctl check` to report.
    @discardableResult
    public func recoverStaleClaims(lease: Int64, now: Int64 = Timestamp.now(), log: Log = .silent, _ held: LockHeld) throws(SpoolFault) -> [String] {
        let cur = directory(.cur)
        var stale: [(FileName, QueueName, Claim)] = []
        do {
            try cur.forEachEntry { name, _ in
                guard !name.isHidden, let queued = QueueName(name), let claim = queued.claim else { return }
                if claim.owner.isAlive.map({ !$0 }) ?? (now - claim.since > lease) { stale.append((name, queued, claim)) }
            }
        } catch {
            throw SpoolFault("list", "\(path)/cur", error)
        }
        var recovered: [String] = []
        for (name, queued, claim) in stale {
            if let status = try? cur.status(of: name), status.linkCount > 1 {
                let resolution: TwinResolution
                do { resolution = try resolveTwin(.cur, name, now: now, log: log, held) } catch {
                    throw SpoolFault("remove the second name of", displayPath(.cur, name), error)
                }
                // Too young to tell: returning it now could give the operation a third name.
                if resolution == .removedThis || resolution == .tooYoung { continue }
            }
            do throws(Errno) {
                // A parsed claim always carries its retry state: the claim suffix follows it.
                try release(QueueEntry(fileName: name, name: queued), state: queued.state!, sync: false, held)
                recovered.append(queued.id)
                log.notice("recovered \(queued.id) from dead worker pid \(claim.owner.pid) on \(claim.owner.host)")
            } catch .noSuchFileOrDirectory {
                // Another worker recovered it first.
            } catch {
                throw SpoolFault("return the claim", displayPath(.cur, name), error)
            }
        }
        if !recovered.isEmpty {
            do { try directory(.new).sync() } catch { throw SpoolFault("fsync", "\(path)/new", error) }
        }
        return recovered
    }

    /// Completes filings cut short by a crash: a reason `ID.why` in `failed/` or `conflict/` without `ID`.
    /// When the entry its `source:` names is still there, the move is made (the decision to file was);
    /// when that entry is gone too, the operation was retried or discarded and the stale reason is removed.
    /// Reasons without `source:` (written by older versions) are left alone.
    @discardableResult
    public func finishFilings(log: Log = .silent, _ held: LockHeld) throws(SpoolFault) -> Int {
        var finished = 0
        for folder in [Folder.failed, .conflict] {
            let dir = directory(folder)
            var orphans: [String] = []
            do {
                try dir.forEachEntry { name, _ in
                    guard !name.isHidden, let text = name.string, text.hasSuffix(".why") else { return }
                    let id = String(text.dropLast(4))
                    if case .failure(.noSuchFileOrDirectory) = Result(catching: { () throws(Errno) in try dir.status(of: FileName(id)) }) {
                        orphans.append(id)
                    }
                }
            } catch {
                throw SpoolFault("list", "\(path)/\(folder.rawValue)", error)
            }
            for id in orphans {
                guard let (from, source) = reason(of: id, in: folder).source, from == .new || from == .cur else { continue }
                // Only a filing whose worker is gone: a claim's owner is checked directly; otherwise (an entry
                // in new/, a claim made on another host) the reason must be older than any filing takes.
                let ownerAlive = from == .cur ? QueueName(source)?.claim?.owner.isAlive : nil
                if ownerAlive == true { continue }
                if ownerAlive == nil {
                    guard let status = try? dir.status(of: FileName(id + ".why")),
                          Timestamp.now() - status.changedSeconds >= Spool.twinSettleSeconds else { continue }
                }
                do throws(Errno) {
                    try finishFiling(source, from: from, to: folder, as: id, held)
                    finished += 1
                    log.notice("finished filing \(id) in \(folder.rawValue)/ (a worker died between writing the reason and moving the operation)")
                } catch .noSuchFileOrDirectory {
                    // The source is gone: check again that the operation did not arrive meanwhile.
                    guard (try? dir.status(of: FileName(id))) == nil else { continue }
                    removeReason(of: id, in: folder, held)
                    log.detail("removed the stale reason \(folder.rawValue)/\(id).why")
                } catch .fileExists {
                    continue
                } catch {
                    throw SpoolFault("finish filing", displayPath(from, source), error)
                }
            }
        }
        return finished
    }

    /// Removes files from `tmp/` not modified for `lifetime` seconds, and second names left in `tmp/` by a
    /// `link` + `unlink` move cut short (their other name is the operation). Hidden names and directories
    /// are left alone.
    @discardableResult
    public func cleanTemporaryFiles(olderThan lifetime: Int64 = Spool.temporaryFileLifetime, now: Int64 = Timestamp.now(), log: Log = .silent) throws(SpoolFault) -> Int {
        let tmp = directory(.tmp)
        var removed = 0
        var names: [FileName] = []
        do {
            try tmp.forEachEntry { name, _ in if !name.isHidden { names.append(name) } }
        } catch {
            throw SpoolFault("list", "\(path)/tmp", error)
        }
        for name in names {
            guard let status = try? tmp.status(of: name), !status.isDirectory else { continue }
            let abandoned = now - status.modifiedMicroseconds / 1_000_000 > lifetime
            let twin = status.linkCount > 1 && now - status.changedSeconds >= Spool.twinSettleSeconds
            guard abandoned || twin else { continue }
            do throws(Errno) {
                try removeTemporary(name)
                removed += 1
                if abandoned { log.notice("removed abandoned \(displayPath(.tmp, name))") }
            } catch .noSuchFileOrDirectory {
            } catch {
                throw SpoolFault("remove", displayPath(.tmp, name), error)
            }
        }
        return removed
    }
}
