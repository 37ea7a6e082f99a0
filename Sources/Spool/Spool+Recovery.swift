extension Spool {
    /// maildir's rule: a file left in `tmp/` this long is an abandoned write.
    public static let temporaryFileLifetime: Int64 = 36 * 3600

    /// Returns claims whose owner is gone to `new/`, keeping their retry state (the attempt count included).
    ///
    /// On this host a claim's owner is checked directly (pid present with the same start time), which is
    /// exact, so a live claim is never stolen however long its request takes. A claim made on another host
    /// (a spool on shared storage) cannot be checked and is recovered once it is older than `lease` seconds.
    /// Entries in `cur/` that are not claims are left alone for `spool-ctl check` to report.
    @discardableResult
    public func recoverStaleClaims(lease: Int64, now: Int64 = Timestamp.now(), log: Log = .silent) throws -> [String] {
        let cur = directory(.cur), new = directory(.new)
        var recovered: [String] = []
        try cur.forEachEntry { name, _ in
            guard !name.isHidden, let queued = QueueName(name), let claim = queued.claim else { return }
            let stale = claim.owner.isAlive.map { !$0 } ?? (now - claim.since > lease)
            guard stale else { return }
            var released = queued
            released.claim = nil
            do throws(Errno) {
                try cur.rename(name, to: new, as: released.fileName)
                recovered.append(queued.id)
                log.notice("recovered \(queued.id) from dead worker pid \(claim.owner.pid) on \(claim.owner.host)")
            } catch .noSuchFileOrDirectory {
                // Another worker recovered it first.
            } catch {
                log.warning("cannot return \(displayPath(.cur, name)) to new/: \(error)")
            }
        }
        if !recovered.isEmpty { try new.sync() }
        return recovered
    }

    /// Removes files from `tmp/` not modified for `lifetime` seconds. Hidden names and directories are left alone.
    @discardableResult
    public func cleanTemporaryFiles(olderThan lifetime: Int64 = Spool.temporaryFileLifetime, now: Int64 = Timestamp.now(), log: Log = .silent) throws -> Int {
        let tmp = directory(.tmp)
        var removed = 0
        try tmp.forEachEntry { name, _ in
            guard !name.isHidden, let status = try? tmp.status(of: name), !status.isDirectory else { return }
            guard now - status.modifiedMicroseconds / 1_000_000 > lifetime else { return }
            do {
                try tmp.unlink(name)
                removed += 1
                log.notice("removed abandoned \(displayPath(.tmp, name))")
            } catch {
                log.warning("cannot remove \(displayPath(.tmp, name)): \(error)")
            }
        }
        return removed
    }
}
