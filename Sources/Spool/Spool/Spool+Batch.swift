import Glibc
import SpoolDocument
import SpoolNames
import SpoolSystem

extension Spool {
    /// Writes `operations` durably together and makes them visible in `new/`, returning their ids in input
    /// order: a group commit, as a database makes many records durable with one flush.
    ///
    /// The order of `enqueue`, for a batch: every file is written complete into `tmp/`; one `syncfs` makes
    /// them all durable (a flush per file would cost the disk one flush each, and a journal one commit each;
    /// where syncfs does not reach the storage, as on FUSE, each file is flushed all the same);
    /// only then is each renamed into `new/`, so that a reader never sees a partial file there, and `new/` is
    /// fsynced once, so that returning means every operation of the batch survives a power cut. A crash before
    /// the end leaves each operation whole in `new/` or only in `tmp/`, which housekeeping removes; the caller
    /// learns no id before all are durable. Order stamps are taken in input order, so writes of one key go in
    /// the order given.
    ///
    /// A payload is not for a batch: the command refuses it first. With `limits`, a spool too full for the
    /// whole batch refuses it before anything is written, and a batch larger than the queue may ever hold is
    /// refused as bad input (65), since waiting cannot help.
    ///
    /// A rename that fails leaves what was renamed before it in `new/`, synced: `queued` gets their ids before
    /// the error is thrown, so that the caller can say which writes of the batch are queued.
    package func enqueueBatch(
        _ operations: [Operation], maxSize: Int = Spool.defaultMaxDocumentSize, limits: QueueLimits? = nil,
        queued: ([String]) -> Void = { _ in }
    ) throws(EnqueueError) -> [String] {
        let documents = operations.map { Array(($0.document.text + "\n").utf8) }
        for bytes in documents where bytes.count > maxSize {
            throw .invalid(.tooLarge(size: bytes.count, limit: maxSize))
        }
        if let limits, operations.count > limits.maxCount {
            throw .batchTooLarge(count: operations.count, limit: Int64(limits.maxCount), option: "--max-queue")
        }
        if let limits, let limit = limits.producerMaxWaiting, operations.count > limit {
            throw .batchTooLarge(count: operations.count, limit: limit, option: "queue in the producer policy")
        }
        let size = documents.reduce(0) { $0 + $1.count }
        if let limits, let refusal = limits.freeSpaceRefusal(self, size: size) { throw .spaceLow(refusal) }
        if let limits, let refusal = limits.refusal(self, size: size, adding: operations.count) {
            throw .queueFull(refusal)
        }
        let scope = users.keyScope(of: UserDatabase.effectiveUser)
        var written: [(temporary: FileName, final: FileName, id: String)] = []
        let eachFile = flushesEachFile
        do throws(EnqueueError) {
            for (operation, bytes) in zip(operations, documents) {
                let (id, order) = UniqueName.next()
                let state = RetryState(for: operation, orderMicroseconds: order, scope: scope)
                let temporary = FileName(id)
                try writeTemporary(temporary, bytes, sync: eachFile)
                written.append((temporary, QueueName(id: id, state: state).fileName, id))
            }
            // Every file complete on the disk before any name appears in new/ (through the spool directory: a
            // producer of a shared spool holds tmp/ by a descriptor that cannot be synced).
            if !eachFile {
                do throws(Errno) { try root.syncFileSystem() } catch { throw .write(path: "\(path)/tmp", error) }
            }
        } catch {
            for file in written { try? removeTemporary(file.temporary) }
            throw error
        }
        CrashPoint.reach("batch.written")
        for (index, file) in written.enumerated() {
            do throws(Errno) {
                try publish(file.temporary, as: file.final)
            } catch {
                // What is in new/ stays: each is whole and durable once new/ is synced below; the rest goes.
                for rest in written[index...] { try? removeTemporary(rest.temporary) }
                if (try? syncPublished(written[..<index].map(\.final))) != nil { queued(written[..<index].map(\.id)) }
                throw error == .crossDevice
                    ? .otherFileSystem(path: "\(path)/tmp") : .write(path: displayPath(.new, file.final), error)
            }
            CrashPoint.reach("batch.published")
        }
        if dropOnly { noteDropped(by: UserDatabase.effectiveUser, sizes: documents.map(\.count)) }
        do throws(Errno) { try syncPublished(written.map(\.final)) } catch { throw .write(path: "\(path)/new", error) }
        return written.map(\.id)
    }

    /// Writes `bytes` into a new file `tmp/NAME`, synced only when `sync`; removes it again when a write fails.
    private func writeTemporary(_ name: FileName, _ bytes: [UInt8], sync: Bool) throws(EnqueueError) {
        let stage = displayPath(.tmp, name)
        let fd: FileDescriptor
        do throws(Errno) {
            fd = try directory(.tmp).open(name, O_WRONLY | O_CREAT | O_EXCL, mode: users.writtenFileMode)
        } catch {
            throw .write(path: stage, error)
        }
        defer { fd.close() }
        do throws(Errno) {
            try fd.writeAll(bytes)
            if sync { try fd.sync() }
        } catch {
            try? removeTemporary(name)
            throw .write(path: stage, error)
        }
    }

    /// Makes the renames of `files` into `new/` durable: an fsync of `new/`. A producer of a shared spool, who
    /// cannot open `new/`, syncs the file system instead, but syncfs(2) never reaches the server of a FUSE file
    /// system (GlusterFS, ceph-fuse: libfuse has no handler for it), nor NFS's: there each file is fsynced
    /// again under its new name (`opened`, or opened by name), which carries its rename to the server.
    func syncPublished(_ files: [FileName], opened: FileDescriptor? = nil) throws(Errno) {
        guard dropOnly else { return try directory(.new).sync() }
        guard storage.mayBeShared else { return try root.syncFileSystem() }
        if let opened { return try opened.sync() }
        for name in files {
            let fd: FileDescriptor
            do throws(Errno) { fd = try directory(.new).open(name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK) } catch {
                // Claimed meanwhile: the sender's own move is synced by the sender.
                if error == .noSuchFileOrDirectory { continue }
                throw error
            }
            defer { fd.close() }
            try fd.sync()
        }
    }

    /// Whether each file is flushed on its own: on storage syncfs(2) does not reach (`syncPublished`).
    var flushesEachFile: Bool { storage.mayBeShared }
}
