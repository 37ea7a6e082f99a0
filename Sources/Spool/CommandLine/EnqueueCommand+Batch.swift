import Glibc
import SpoolDocument
import SpoolQueue
import SpoolSystem

extension EnqueueCommand {
    /// The largest batch read, in bytes.
    static let maxBatchBytes = 1 << 30

    /// `--batch`: reads the documents, one per line, checks every one before anything is written, then queues
    /// them durably together (`Spool.enqueueBatch`), a `merge` or DELETE line folded as it would be alone after
    /// the lines before it were queued. Returns what became of each document, in input order, and the error
    /// that stopped the batch after some of it was queued, if one did.
    package func runBatch(group: GroupPrivilege = .none) throws(EnqueueInputError)
        -> (done: [Enqueued], failure: EnqueueInputError?)
    {
        // The caller's file is read as the caller, before the drop group is taken.
        let operations = try batchOperations(batchInput ?? "-")
        let spool = try group.whileRaised { () throws(EnqueueInputError) in try openSpool(group: group) }
        var results: [Enqueued] = [], pending: [Operation] = []
        // Queues the lines gathered so far as one group commit; what a failed one queued still counts.
        func queuePending() throws(EnqueueError) {
            guard !pending.isEmpty else { return }
            results += try spool.enqueueBatch(pending, maxSize: maxSize, limits: limits) { queued in
                results += queued.map(Enqueued.queued)
            }.map(Enqueued.queued)
            pending = []
        }
        do throws(EnqueueError) {
            try group.whileRaised { () throws(EnqueueError) in
                for operation in operations {
                    guard spool.foldsAtEnqueue(operation) else {
                        pending.append(operation)
                        continue
                    }
                    try queuePending()
                    results.append(try spool.enqueueFolding(operation, maxSize: maxSize, limits: limits))
                }
                try queuePending()
            }
        } catch {
            return (results, .enqueue(error))
        }
        return (results, nil)
    }

    /// The documents of a batch, each checked and `completed` as `--document` is; the first bad line is
    /// thrown with its number. Blank lines are skipped.
    func batchOperations(_ path: String) throws(EnqueueInputError) -> [Operation] {
        let bytes = try read(path, limit: EnqueueCommand.maxBatchBytes)
        let name = path == "-" ? "standard input" : path
        var operations: [Operation] = []
        let trace = EnqueueCommand.environmentTrace()
        for (index, line) in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated()
        where line.contains(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") && $0 != UInt8(ascii: "\r") })
        {
            let source = "\(name) line \(index + 1)"
            guard line.count < maxSize else {
                throw .invalid(source: source, .tooLarge(size: line.count + 1, limit: maxSize))
            }
            var document: JSON
            do { document = try JSON.parse(Array(line)) } catch { throw .notJSON(path: source, error) }
            document = EnqueueCommand.completed(document, trace: trace)
            let operation: Operation
            do { operation = try Operation(document: document) } catch { throw .invalid(source: source, error) }
            // The size that counts is the document as it is written, completed.
            let size = operation.document.text.utf8.count + 1
            guard size <= maxSize else { throw .invalid(source: source, .tooLarge(size: size, limit: maxSize)) }
            guard !operation.hasPayload else {
                throw .invalid(source: source, .invalidName(
                    field: "payload", value: "true", why: "a batch takes no payload: queue it alone with --payload"))
            }
            operations.append(operation)
        }
        return operations
    }
}
