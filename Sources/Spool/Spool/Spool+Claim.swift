import Synchronization

extension Spool {
    /// The last claim suffix made: a worker claims many operations in the same second.
    static let lastClaimSuffix = Mutex<(Claim, [UInt8])?>(nil)

    /// `@HOST,PID,START,SINCE` as bytes.
    static func claimSuffix(_ claim: Claim) -> [UInt8] {
        lastClaimSuffix.withLock { last in
            if let (previous, bytes) = last, previous == claim { return bytes }
            let bytes = [UInt8(ascii: "@")] + Array(claim.text.utf8)
            last = (claim, bytes)
            return bytes
        }
    }

    /// Claims a waiting operation by renaming it into `cur/` under a name that records the owner.
    /// Exactly one of several competing workers wins; the others get nil and move on.
    public func claim(_ entry: QueueEntry, owner: ProcessIdentity = .current, now: Int64 = Timestamp.now()) throws(Errno) -> QueueEntry? {
        var claimed = entry.name
        let claim = Claim(owner: owner, since: now)
        claimed.claim = claim
        // The claimed name is the waiting name plus the claim: no need to write the state out again.
        let fileName = FileName(bytes: entry.fileName.bytes + Spool.claimSuffix(claim))
        do {
            try move(entry.fileName, from: .new, to: .cur, as: fileName)
        } catch .noSuchFileOrDirectory {
            return nil
        }
        return QueueEntry(fileName: fileName, name: claimed)
    }

    /// Removes a claimed operation that is done. Not fsynced: if a crash undid the unlink, the operation would
    /// be sent again with the same Idempotency-Key, which the server answers from its record.
    public func complete(_ claimed: QueueEntry) throws(Errno) {
        try directory(.cur).unlink(claimed.fileName)
    }

    /// Returns a claimed operation to `new/` with a new retry state.
    public func release(_ claimed: QueueEntry, state: RetryState, sync: Bool = true) throws(Errno) {
        let name = QueueName(id: claimed.id, state: state)
        try move(claimed.fileName, from: .cur, to: .new, as: name.fileName)
        if sync { try directory(.new).sync() }
    }

    /// The entries in `cur/` that carry a claim.
    public func forEachClaim(_ body: (QueueEntry) throws -> Void) throws {
        try directory(.cur).forEachEntry { fileName, _ in
            guard !fileName.isHidden, let name = QueueName(fileName), name.claim != nil else { return }
            try body(QueueEntry(fileName: fileName, name: name))
        }
    }
}
