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
        // 0 turns the check off: some file systems (FUSE, network) report no free space at all.
        if minFreeBytes > 0, let free = try? spool.directory(.new).availableBytes() {
            if free - size < minFreeBytes {
                return
                    "\(free) bytes free on the spool's file system, less than the \(minFreeBytes) to keep (--min-free)"
            }
        }
        var count = 0
        try? spool.forEachRawEntry(in: .new) { raw, _ in if raw.first != UInt8(ascii: ".") { count += 1 } }
        if count >= maxCount { return "\(count) operations wait in new/, the limit is \(maxCount) (--max-queue)" }
        return nil
    }
}
