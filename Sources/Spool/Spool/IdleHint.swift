import Glibc
import SpoolSystem

/// What the last look at an idle queue found, so that a cron run over thousands of waiting operations
/// need not list them again: `.idle` in the spool root holds the modification times of `new/` and `cur/`
/// at that look, and the earliest time anything in them can become due.
///
/// Any operation arriving, moving, being claimed or finished changes one of the two folder times, and
/// time passing reaches `due`; until either happens nothing can have become sendable. The hint is written
/// only when both folder times are over a second old, because file times are coarse: a change made within
/// the same tick as the time recorded could otherwise leave it unchanged. A lost or stale hint costs one
/// full listing, never a missed operation, so it is not fsynced.
package struct IdleHint: Equatable {
    /// The modification time of `new/` at the look (nanoseconds since the epoch).
    package var newModifiedNanoseconds: Int64
    /// The modification time of `cur/` at the look (nanoseconds since the epoch).
    package var curModifiedNanoseconds: Int64
    /// Epoch seconds; `Int64.max` when nothing waits at all.
    package var dueSeconds: Int64

    /// A hint from the folder times read before a listing that found nothing due before `dueSeconds`.
    package init(newModifiedNanoseconds: Int64, curModifiedNanoseconds: Int64, dueSeconds: Int64) {
        (self.newModifiedNanoseconds, self.curModifiedNanoseconds, self.dueSeconds) = (
            newModifiedNanoseconds, curModifiedNanoseconds, dueSeconds
        )
    }

    /// The file, in the spool root.
    package static let fileName = FileName(".idle")
    /// How old both folder times must be before a hint is written: file times are coarse.
    package static let settleNanoseconds: Int64 = 1_000_000_000

    /// The modification times of `new/` and `cur/` now.
    package static func folderTimes(_ spool: Spool) -> (new: Int64, cur: Int64)? {
        guard let new = spool.folderStatus(.new), let cur = spool.folderStatus(.cur) else {
            return nil
        }
        return (new.modifiedNanoseconds, cur.modifiedNanoseconds)
    }

    /// The hint in `spool`, if there is a readable one.
    package static func read(_ spool: Spool) -> IdleHint? {
        guard let bytes = spool.readHint(fileName, limit: 256) else { return nil }
        let fields = String(decoding: bytes, as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\n" })
            .compactMap { Int64($0) }
        guard fields.count == 3 else { return nil }
        return IdleHint(newModifiedNanoseconds: fields[0], curModifiedNanoseconds: fields[1], dueSeconds: fields[2])
    }

    /// Whether nothing in `spool` can have become due since the hint was written.
    package func stillHolds(_ spool: Spool, nowSeconds: Int64) -> Bool {
        guard nowSeconds < dueSeconds, let times = IdleHint.folderTimes(spool) else { return false }
        return times.new == newModifiedNanoseconds && times.cur == curModifiedNanoseconds
    }

    /// Writes the hint through `tmp/` and a rename, replacing the last one.
    package func write(to spool: Spool) {
        spool.writeHint(IdleHint.fileName, "\(newModifiedNanoseconds) \(curModifiedNanoseconds) \(dueSeconds)\n")
    }
}
