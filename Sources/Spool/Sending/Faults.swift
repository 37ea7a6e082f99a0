import SpoolNames
import SpoolQueue
import SpoolSystem
import Synchronization

/// The faults of the spool a worker meets, and the claims they stranded: kept apart from the run's counts so
/// that the lanes, the removals threads and the read-ahead report to one place, and the exit status is read
/// from it.
package final class Faults: Sendable {
    /// Faults met since the last `take`.
    private let report = Locked(FaultReport())
    /// Set by a fault that ends the run (`storage`, `disconnected`): every operation stays where it is.
    private let storageFailed = Atomic<Bool>(false)
    /// Claims the worker could not move on (a full or failing disk): returned to `new/` at housekeeping,
    /// since recovery never takes a live worker's claims.
    private let stranded = Locked<[QueueEntry]>([])
    /// Where the first of each kind is said.
    private let log: Log

    /// No faults yet; they are said on `log`.
    package init(log: Log) { self.log = log }

    /// Whether a fault met since the last `take` ends the run: going on would only fail again.
    package var endRun: Bool { storageFailed.load(ordering: .relaxed) }

    /// Notes a fault of the spool (not of an operation): logged once per kind, kept for the exit status.
    package func record(_ fault: SystemCallError) {
        let first = report.withLock { $0.add(fault) }
        if first { log.warning(fault.description) } else { log.detail(fault.description) }
        if fault.kind.stopsRun { storageFailed.store(true, ordering: .relaxed) }
    }

    /// Notes `fault`, and keeps `claimed`, which it left in `cur/`, for `takeStranded`.
    package func strand(_ claimed: QueueEntry, _ fault: SystemCallError) {
        record(fault)
        stranded.withLock { $0.append(claimed) }
    }

    /// The claims stranded so far, forgotten here: the caller gives them back.
    package func takeStranded() -> [QueueEntry] {
        stranded.withLock { list in defer { list = [] }; return list }
    }

    /// The faults met since the last call, forgotten here: what decides a run's exit status. A watcher that
    /// goes on after them runs again as if they had not been.
    package func take() -> FaultReport {
        defer { storageFailed.store(false, ordering: .relaxed) }
        return report.withLock { report in defer { report = FaultReport() }; return report }
    }
}
