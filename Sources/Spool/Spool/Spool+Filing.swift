import SpoolDocument
import SpoolNames
import SpoolSystem
import SpoolTransport

extension Spool {
    /// Files `name` in `destination` with its reason and says so in the log: the one way into `failed/`
    /// and `conflict/`, for intake and workers alike. Returns whether this call moved it (false when
    /// another worker moved it first, or when a fault left it where it was) and the fault, if any: a
    /// failed fsync after the move comes with `moved` true.
    /// `what` says what the operation does (`PUT https://…`), when it could be read, for the log line.
    public func file(_ name: FileName, from folder: Folder, to destination: Folder, id: String, reason: FilingReason,
                     what summary: String? = nil, log: Log) -> (moved: Bool, fault: SpoolFault?) {
        let filed: String
        var fault: SpoolFault?
        do {
            guard let name = try file(name, from: folder, to: destination, id: id, reason: reason) else { return (false, nil) }
            filed = name
        } catch {
            switch error {
            case let .notMoved(errno): return (false, SpoolFault("file in \(destination.rawValue)/", displayPath(folder, name), errno))
            case let .unsynced(name, errno):
                filed = name
                fault = SpoolFault("fsync", "\(path)/\(destination.rawValue)", errno)
            }
        }
        // The id says which operation; a name that is not a queue name is shown as it was.
        var what = QueueName(name)?.id == id ? id : "\(folder.rawValue)/\(name.escaped)"
        if let summary { what += " (\(summary))" }
        log.warning("\(what) -> \(destination.rawValue)/\(filed): \(reason["reason"] ?? reason.fields.first?.1 ?? "")")
        return (true, fault)
    }
}
