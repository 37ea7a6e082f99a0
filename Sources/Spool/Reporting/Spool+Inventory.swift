import SpoolConfiguration
import SpoolDocument
import SpoolHandlers
import SpoolNames
import SpoolQueue
import SpoolSystem
import SpoolTransport

extension Spool {
    /// One entry read for display.
    package func item(_ folder: Folder, _ fileName: FileName, maxSize: Int) -> QueueItem? {
        let status = try? directory(folder).status(of: fileName)
        let name = QueueName(fileName)
        let id = name?.id ?? fileName.escaped
        var item = QueueItem(
            id: id, folder: folder, fileName: fileName, attempts: name?.state?.attempts ?? 0,
            dueSeconds: name?.state.flatMap { $0.dueSeconds > 0 ? $0.dueSeconds : nil },
            lastError: name?.state?.lastError,
            orderMicroseconds: name?.state?.orderMicroseconds ?? status?.modifiedMicroseconds ?? 0, claim: name?.claim,
            operation: nil, problem: nil, reason: FilingReason([(String, String)]()), size: status?.size ?? 0,
            producer: status.map { users.producer(owner: $0.owner, name: fileName) })
        if folder == .failed || folder == .conflict {
            item.reason = reason(of: fileName.string ?? id, in: folder)
            if let attempts = item.reason["attempts"].flatMap({ Int($0) }) { item.attempts = attempts }
            if let order = item.reason["order"].flatMap({ Int64($0) }) { item.orderMicroseconds = order }
            // The last answer's status when one came (a 404 after timeouts was filed for the 404), else the
            // token of the failure that ended it.
            item.lastError = item.reason["status"] ?? item.reason["last-error"]
            // Filed under its bare id, a write the owner rewrote keeps its producer in its reason.
            if let owner = status?.owner, !users.isProducer(owner),
               let producer = item.reason["producer-uid"].flatMap(UInt32.init), users.isProducer(producer)
            {
                item.producer = producer
            }
        }
        do {
            item.operation = try readOperation(folder, fileName, maxSize: maxSize, maxPayload: .max, keptTwin: true)?
                .operation
            if item.operation == nil { return nil }
        } catch {
            // The name a crash left beside the operation's real one: listed once, under the name kept.
            if case .twin = error { return nil }
            item.problem = error.description
        }
        return item
    }

    /// Finds an operation by id, or by a path such as `spool/conflict/ID` or a full name `ID:STATE` as `ls` shows it.
    package func locate(
        _ argument: String, in folders: [Folder] = [.new, .cur, .failed, .conflict]
    ) throws -> QueueItem? {
        var text = Substring(argument)
        var wanted = folders
        if let slash = text.lastIndex(of: "/") {
            let parent = text[..<slash].split(separator: "/").last.map(String.init)
            if let parent, let folder = Folder(rawValue: parent), folders.contains(folder) { wanted = [folder] }
            text = text[text.index(after: slash)...]
        }
        let id = QueueName(FileName(String(text)))?.id ?? String(text)
        // A reason file is part of its operation's record, never an operation of its own.
        if id.hasSuffix(".why") { return nil }
        for folder in wanted {
            // Filed operations keep their plain id as name: one lookup, not a listing per argument.
            if folder == .failed || folder == .conflict, OperationID.isValid(id),
                (try? directory(folder).status(of: FileName(id))) != nil,
                let item = item(folder, FileName(id), maxSize: Spool.defaultMaxDocumentSize * 64)
            {
                return item
            }
            var found: FileName?
            try forEachEntry(in: folder) { fileName, _ in
                guard found == nil else { return }
                if fileName.string == id || QueueName(fileName)?.id == id { found = fileName }
            }
            if let found, let item = item(folder, found, maxSize: Spool.defaultMaxDocumentSize * 64) { return item }
        }
        return nil
    }

    /// The operation whose id begins with `prefix` (as git takes a commit's), when exactly one does; nil when
    /// none does. More than one is `AmbiguousID`, with the ids that match (at most ten).
    package func locate(prefix: String, in folders: [Folder] = [.new, .cur, .failed, .conflict]) throws -> QueueItem? {
        guard !prefix.isEmpty, !prefix.contains("/") else { return nil }
        var matches: [(Folder, FileName, String)] = []
        for folder in folders {
            try forEachEntry(in: folder) { fileName, _ in
                guard let name = fileName.string, !name.hasPrefix("."), !name.hasSuffix(".why") else { return }
                let id = QueueName(fileName)?.id ?? name
                if id.hasPrefix(prefix) { matches.append((folder, fileName, id)) }
            }
        }
        let ids = Set(matches.map(\.2))
        if ids.count > 1 { throw AmbiguousID(prefix: prefix, ids: ids.sorted()) }
        guard let (folder, fileName, _) = matches.first else { return nil }
        return item(folder, fileName, maxSize: Spool.defaultMaxDocumentSize * 64)
    }
}

/// An id prefix that more than one operation's id begins with.
package struct AmbiguousID: Error, CustomStringConvertible {
    /// The prefix given.
    package let prefix: String
    /// The ids it matches, sorted.
    package let ids: [String]

    /// The message: the ids that match, at most ten, and how to choose.
    package var description: String {
        let shown = ids.prefix(10).joined(separator: ", ") + (ids.count > 10 ? ", ... (\(ids.count) in all)" : "")
        return "\(prefix) is the start of more than one id: \(shown); give more of the id"
    }
}
