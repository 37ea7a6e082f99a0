import SpoolConfiguration
import SpoolDocument
import SpoolHandlers
import SpoolNames
import SpoolQueue
import SpoolSystem
import SpoolTransport

/// The faults of the spool or the system met by a run: what decides its exit status.
package struct FaultReport: Sendable {
    /// The first faults met, at most `limit`, for the message.
    package private(set) var faults: [SystemCallError] = []
    /// How many were met in all.
    package private(set) var count = 0
    /// Whether any fault was of a class that ends the run, `storage` or `disconnected` (counted beyond
    /// `limit` too).
    package private(set) var stopsRun = false
    /// Whether any fault was of the `storage` class, which also ends a watcher so that its supervisor sees
    /// the status; a watcher waits out a file system out of reach (counted beyond `limit` too).
    package private(set) var endsWatcher = false
    /// Whether any fault was other than one that passes by itself (counted beyond `limit` too).
    package private(set) var needsOperator = false

    /// How many faults are kept for the message.
    package static let limit = 32

    /// No faults.
    package init() {}

    /// Adds one; returns whether it is the first of its kind (same error, same action), worth logging.
    @discardableResult
    package mutating func add(_ fault: SystemCallError) -> Bool {
        let first = !faults.contains { $0.error == fault.error && $0.action == fault.action }
        if faults.count < FaultReport.limit { faults.append(fault) }
        count += 1
        stopsRun = stopsRun || fault.kind.stopsRun
        endsWatcher = endsWatcher || fault.kind == .storage
        needsOperator = needsOperator || !fault.kind.passes
        return first
    }


    /// Whether nothing went wrong.
    package var isEmpty: Bool { count == 0 }

    /// 74 when the storage failed or a file could not be read, 75 when every fault was one that passes
    /// (a shortage, a file system out of reach: sysexits EX_TEMPFAIL), 0 for none.
    package var exitCode: Int32 {
        if isEmpty { return ExitCode.success }
        return needsOperator ? ExitCode.ioError : ExitCode.temporaryFailure
    }

    /// One line for the end of the run; each fault was logged when it happened.
    package var summary: String {
        guard let first = faults.first else { return "no faults" }
        return
            "\(count) fault(s) of the spool or the system, not of the operations: nothing was filed because of them, "
                + "and every operation they touched stays queued. First: \(first)"
    }
}
