import Glibc
import SpoolSystem

/// Maildir-style unique ids: `SECONDS.MMICROSPPIDQSEQRRANDOM.HOST`, e.g. `1764412345.M012345P4242Q1R9f3a0c1b.host`.
///
/// The leading time is also the enqueue order. Within one process it never repeats or goes backwards
/// (each id takes at least the previous microsecond plus one), so two operations enqueued one after the
/// other by one process are never reordered, even if the clock is stepped back.
package enum UniqueName {
    /// The last order stamp given (microseconds since the epoch) and how many ids this process has made.
    package static let state = Locked<(last: Int64, sequence: Int)>((0, 0))

    /// A new id and its enqueue order stamp (microseconds since the epoch).
    package static func next(host: String = ProcessIdentity.current.host) -> (id: String, order: Int64) {
        let (micros, sequence) = state.withLock { state -> (Int64, Int) in
            state.last = max(Timestamp.nowMicroseconds(), state.last + 1)
            state.sequence += 1
            return (state.last, state.sequence)
        }
        let random = String(UInt32.random(in: .min ... .max), radix: 16).leftPadded(to: 8)
        let micro = String(micros % 1_000_000).leftPadded(to: 6)
        let id = "\(micros / 1_000_000).M\(micro)P\(getpid())Q\(sequence)R\(random).\(host)"
        let cut = String(id.prefix(OperationID.maxLength))
        // A host name may end in `.why` or hold bytes an id may not: the id must be one all the same.
        return (OperationID.isValid(cut) ? cut : OperationID.sanitized(FileName(cut)), micros)
    }
}
