import Glibc
import SpoolSystem

/// Limits `spool-enqueue` checks before writing, so that a stuck sender makes producers back off (exit 75)
/// instead of filling the disk.
package struct QueueLimits: Sendable {
    /// Most operations waiting in `new/`.
    package var maxCount: Int
    /// Least free space to leave on the spool's file system, in bytes (Postfix's queue_minfree).
    package var minFreeBytes: Int
    /// The most writes, and bytes, this producer may have waiting in a shared spool (the producer policy's
    /// `queue` and `bytes`); nil for no limit.
    package var producerMaxWaiting: Int64?, producerMaxBytes: Int64?
    /// The producer policy those come from, for the message.
    package var policyPath: String?

    /// Generous defaults: 100,000 operations, 16 MiB free.
    package init(maxCount: Int = 100_000, minFreeBytes: Int = 16 << 20) {
        self.maxCount = maxCount
        self.minFreeBytes = minFreeBytes
    }

    /// Why the spool is too full for `adding` more documents of `size` bytes in all, or nil.
    /// Counting costs one listing of `new/` (names only); free space one `fstatvfs`.
    package func refusal(_ spool: Spool, size: Int, adding: Int = 1) -> String? {
        if let refusal = freeSpaceRefusal(spool, size: size) { return refusal }
        var count = 0
        if spool.dropOnly {
            // A producer of a shared spool cannot list new/: the counts the sender keeps for them.
            let counts = spool.waitingCounts()
            if let refusal = producerRefusal(counts, size: size, adding: adding) { return refusal }
            count = counts?.total ?? 0
        } else {
            try? spool.forEachRawEntry(in: .new) { raw, _ in if raw.first != UInt8(ascii: ".") { count += 1 } }
        }
        if count + adding > maxCount {
            return "\(count) operations wait in new/\(adding > 1 ? " and \(adding) would be added" : ""), the limit is "
                + "\(maxCount) (--max-queue)"
        }
        return nil
    }

    /// Why `adding` more writes of `size` bytes in all (their count already taken, unless `counting`) would
    /// pass this producer's limits in a shared spool, by `counts` (`Spool.waitingCounts`); nil when they would not.
    package func producerRefusal(
        _ counts: (total: Int, producers: [UInt32: Spool.Waiting])?, size: Int, counting: Bool = true, adding: Int = 1
    ) -> String? {
        guard producerMaxWaiting != nil || producerMaxBytes != nil else { return nil }
        let waiting = counts?.producers[UserDatabase.effectiveUser] ?? (0, 0)
        let policy = policyPath.map { " in the producer policy \($0)" } ?? ""
        if counting, let limit = producerMaxWaiting, waiting.count + Int64(adding) > limit {
            return "\(waiting.count) of your writes wait in new/, the limit is \(limit) (queue\(policy))"
        }
        if let limit = producerMaxBytes, waiting.bytes + Int64(size) > limit {
            return "your writes waiting in new/ hold \(waiting.bytes) bytes, and this one's \(size) would pass the "
                + "limit of \(limit) (bytes\(policy))"
        }
        return nil
    }

    /// Why `size` more bytes would leave less free space than `minFreeBytes`, or nil.
    package func freeSpaceRefusal(_ spool: Spool, size: Int) -> String? {
        // 0 turns the check off: some file systems (FUSE, network) report no free space at all.
        guard minFreeBytes > 0, let free = try? spool.directory(.new).availableBytes(), free - size < minFreeBytes
        else { return nil }
        return "\(free) bytes free on the spool's file system, less than the \(minFreeBytes) to keep (--min-free)"
    }
}
