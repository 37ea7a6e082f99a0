import SpoolDocument
import SpoolNames
import SpoolQueue
import SpoolSystem

/// `depends_on`: where each dependency of an operation is, and whether they lead back to it.
extension Worker {
    /// What each `depends_on` id is, up to the first that is not done.
    package func dependencies(of operation: Operation, _ entry: QueueEntry, plan: Plan)
        -> [OperationStateMachine.Dependency]
    {
        var found: [OperationStateMachine.Dependency] = []
        for dependency in operation.dependsOn {
            if dependency == entry.id { return found + [.itself] }
            for folder in [Spool.Folder.failed, .conflict] {
                switch Result(catching: { () throws(Errno) in
                    try spool.directory(folder).status(of: FileName(dependency))
                }) {
                case .success: return found + [.filed(id: dependency, folder: folder)]
                case .failure(.noSuchFileOrDirectory): continue
                case let .failure(error):
                    // A dependency must never look absent because of a fault: wait.
                    record(SystemCallError("look up", spool.displayPath(folder, FileName(dependency)), error))
                    return found + [.queued(id: dependency)]
                }
            }
            let present: Bool
            do { present = try plan.present.lookup(dependency, in: spool) != nil } catch {
                record(error)
                return found + [.queued(id: dependency)]
            }
            if present, !state.withLock({ $0.completed.contains(dependency) }) {
                log.detail("\(entry.id): waits for \(dependency), still queued or being sent")
                let cycle = dependsTransitively(on: entry.id, from: dependency, plan: plan)
                return found + [cycle ? .cycle(through: dependency) : .queued(id: dependency)]
            }
            found.append(.done)
        }
        return found
    }

    /// Whether `start`'s dependencies lead back to `id` (bounded, reading only the documents on the path).
    package func dependsTransitively(on id: String, from start: String, plan: Plan) -> Bool {
        var queue = [start], seen: Set<String> = [start]
        while let current = queue.popLast(), seen.count < 256 {
            guard let (folder, fileName) = try? plan.present.lookup(current, in: spool),
                  let next = try? readDocument(folder, fileName)?.operation
            else { continue }
            for dependency in next.dependsOn {
                if dependency == id { return true }
                if seen.insert(dependency).inserted { queue.append(dependency) }
            }
        }
        return false
    }
}
