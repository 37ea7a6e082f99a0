import Glibc
import SpoolNames
import SpoolSystem

/// Making deferred operations due now: what a watcher does when the network changes, and what
/// `spool-ctl retry --now` and `flush` do one by one.
extension Spool {
    /// Clears the retry time of every deferred operation in `new/` whose last error is one of `errors`, under
    /// one lock: what a watcher does when the network changes. Order per key holds, since the order stamp
    /// stays. Returns how many were made due.
    /// The listing is made without the lock, which is held only for the renames: a name that moved
    /// meanwhile is skipped.
    package func makeDue(deferredBy errors: Set<String>, nowSeconds: Int64 = Timestamp.nowSeconds())
        throws(SystemCallError) -> Int
    {
        var targets: [(FileName, FileName)] = []
        do throws(Errno) {
            try forEachEntry(in: .new) { fileName, _ in
                guard let state = QueueName(fileName)?.state, state.dueSeconds > nowSeconds,
                    let error = state.lastError, errors.contains(error),
                    let target = Spool.dueNow(fileName)
                else { return }
                targets.append((fileName, target))
            }
        } catch {
            throw SystemCallError("list", "\(path)/new", error)
        }
        guard !targets.isEmpty else { return 0 }
        return try withLock { transaction throws(SystemCallError) in
            var made = 0
            for (name, target) in targets {
                switch transaction.restate(name, as: target) {
                case .moved: made += 1
                case .gone: continue
                case let .fault(fault): throw fault
                }
            }
            return made
        }
    }

    /// The name of a deferred operation made due now (its retry time cleared, all else kept), or nil when it
    /// is not deferred.
    package static func dueNow(_ fileName: FileName) -> FileName? {
        guard var name = QueueName(fileName), var state = name.state, state.dueSeconds > 0 else { return nil }
        state.dueSeconds = 0
        name.state = state
        return name.fileName
    }
}
