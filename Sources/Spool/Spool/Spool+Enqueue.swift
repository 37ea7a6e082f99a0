import Glibc
import SpoolDocument
import SpoolNames
import SpoolSystem
import SpoolTransport

extension Spool {
    /// Default largest document accepted, in bytes.
    public static let defaultMaxDocumentSize = 1 << 20

    /// Writes `operation` durably and makes it visible in `new/`, returning its id.
    ///
    /// The order matters: the file is complete and fsynced in `tmp/` before the rename, so a reader never sees
    /// a partial file in `new/`; `new/` is fsynced after the rename, so that returning means the operation
    /// survives a power cut.
    ///
    /// With `limits`, a spool that is too full refuses the operation before anything is written.
    public func enqueue(_ operation: Operation, maxSize: Int = Spool.defaultMaxDocumentSize, limits: QueueLimits? = nil)
        throws(EnqueueError) -> String
    {
        var text = operation.document.text
        text += "\n"
        let bytes = Array(text.utf8)
        guard bytes.count <= maxSize else { throw .invalid(.tooLarge(size: bytes.count, limit: maxSize)) }
        if let limits, let refusal = limits.refusal(self, size: bytes.count) { throw .queueFull(refusal) }
        let (id, order) = UniqueName.next()
        let state = RetryState(for: operation, orderMicroseconds: order)
        let temporary = FileName(id)
        let final = QueueName(id: id, state: state).fileName
        let tmp = directory(.tmp), new = directory(.new)
        var stage = displayPath(.tmp, temporary)
        do throws(Errno) {
            let fd = try tmp.open(temporary, O_WRONLY | O_CREAT | O_EXCL, mode: Spool.fileMode)
            do throws(Errno) {
                try fd.writeAll(bytes)
                try fd.sync()
                fd.close()
            } catch {
                fd.close()
                throw error
            }
            stage = displayPath(.new, final)
            try publish(temporary, as: final)
        } catch .crossDevice {
            try? removeTemporary(temporary)
            throw .otherFileSystem(path: "\(path)/tmp")
        } catch {
            try? removeTemporary(temporary)
            throw .write(path: stage, error)
        }
        do throws(Errno) {
            try new.sync()
        } catch {
            throw .write(path: "\(path)/new", error)
        }
        return id
    }
}

extension RetryState {
    /// The state of `operation` as admitted or enqueued: never tried, due at its `not_before`.
    public init(for operation: Operation, orderMicroseconds: Int64) {
        self.init(
            orderMicroseconds: orderMicroseconds, keyHash: OrderingKey.hash(operation.key),
            priority: operation.priority,
            dueSeconds: operation.notBefore ?? 0)
        originHash = OrderingKey.originHash(operation.origin)
    }
}
