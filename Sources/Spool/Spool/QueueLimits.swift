import Glibc
import SpoolDocument
import SpoolNames
import SpoolSystem
import SpoolTransport

/// Limits `spool-enqueue` checks before writing, so that a stuck sender makes producers back off (exit 75)
/// instead of filling the disk.
public struct QueueLimits: Sendable {
    /// Most operations waiting in `new/`.
    public var maxCount: Int
    /// Least free space to leave on the spool's file system, in bytes (Postfix's queue_minfree).
    public var minFreeBytes: Int

    /// Generous defaults: 100,000 operations, 16 MiB free.
    public init(maxCount: Int = 100_000, minFreeBytes: Int = 16 << 20) {
        self.maxCount = maxCount
        self.minFreeBytes = minFreeBytes
    }

    /// Why the spool is too full for one more document of `size` bytes, or nil.
    /// Counting costs one listing of `new/` (names only); free space one `fstatvfs`.
    package func refusal(_ spool: Spool, size: Int) -> String? {
        if let refusal = freeSpaceRefusal(spool, size: size) { return refusal }
        var count = 0
        if spool.dropOnly {
            // A producer of a shared spool cannot list new/: the count the sender keeps for them.
            count = spool.waitingCount() ?? 0
        } else {
            try? spool.forEachRawEntry(in: .new) { raw, _ in if raw.first != UInt8(ascii: ".") { count += 1 } }
        }
        if count >= maxCount { return "\(count) operations wait in new/, the limit is \(maxCount) (--max-queue)" }
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
