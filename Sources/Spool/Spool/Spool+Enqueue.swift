import Glibc
import SpoolDocument
import SpoolNames
import SpoolSystem

extension Spool {
    /// Default largest document accepted, in bytes.
    package static let defaultMaxDocumentSize = 1 << 20
    /// Default largest payload accepted, in bytes (`--max-payload`): 1 GiB.
    package static let defaultMaxPayloadSize: Int64 = 1 << 30

    /// Writes `operation` durably and makes it visible in `new/`, returning its id.
    ///
    /// The order matters: the file is complete and fsynced in `tmp/` before the rename, so a reader never sees
    /// a partial file in `new/`; `new/` is fsynced after the rename, so that returning means the operation
    /// survives a power cut.
    ///
    /// With `limits`, a spool that is too full refuses the operation before anything is written.
    ///
    /// With `payload`, an open input (a file, standard input) whose bytes follow the document's line: the
    /// document must say `"payload": true`, and the payload is copied in pieces, at most `maxPayload` bytes,
    /// before the same fsync and rename, so that the operation and its payload appear in `new/` together.
    package func enqueue(
        _ operation: Operation, maxSize: Int = Spool.defaultMaxDocumentSize, limits: QueueLimits? = nil,
        payload: PayloadSource? = nil, maxPayload: Int64 = Spool.defaultMaxPayloadSize
    ) throws(EnqueueError) -> String {
        var text = operation.document.text
        text += "\n"
        let bytes = Array(text.utf8)
        guard bytes.count <= maxSize else { throw .invalid(.tooLarge(size: bytes.count, limit: maxSize)) }
        guard (payload != nil) == operation.hasPayload else {
            throw .invalid(.invalidName(
                field: "payload", value: operation.hasPayload ? "true" : "absent",
                why: operation.hasPayload ? "needs the payload's input" : "must be true when a payload is given"))
        }
        if let limits, let refusal = limits.freeSpaceRefusal(self, size: bytes.count) { throw .spaceLow(refusal) }
        if let limits, let refusal = limits.refusal(self, size: bytes.count) { throw .queueFull(refusal) }
        let (id, order) = UniqueName.next()
        let state = RetryState(
            for: operation, orderMicroseconds: order, scope: users.keyScope(of: UserDatabase.effectiveUser))
        let temporary = FileName(id)
        let final = QueueName(id: id, state: state).fileName
        let tmp = directory(.tmp)
        var stage = displayPath(.tmp, temporary)
        let fd: FileDescriptor
        var size = bytes.count
        do throws(Errno) {
            // A shared spool's sender reads what producers drop through the drop group (tmp/ is set-group-ID).
            fd = try tmp.open(temporary, O_WRONLY | O_CREAT | O_EXCL, mode: users.writtenFileMode)
        } catch {
            throw .write(path: stage, error)
        }
        // Kept open until the rename is synced: on FUSE, flushing the file again is what carries its rename.
        defer { fd.close() }
        do throws(EnqueueError) {
            do throws(Errno) { try fd.writeAll(bytes) } catch { throw .write(path: stage, error) }
            switch payload {
            case nil: break
            case let .input(input, source, progress):
                try copyPayload(from: (input, source), to: fd, at: stage, limit: maxPayload, progress: progress)
            case let .bytes(bytes):
                guard Int64(bytes.count) <= maxPayload else {
                    throw .payloadTooLarge(size: Int64(bytes.count), limit: maxPayload)
                }
                do throws(Errno) { try fd.writeAll(bytes) } catch { throw .write(path: stage, error) }
            }
            // The payload counts against the free space to keep and the producer's bytes, as the document did:
            // its size is known only now, and the file system has already reserved its blocks.
            if payload != nil {
                size = (try? fd.status().size) ?? size
                if let limits, let refusal = limits.freeSpaceRefusal(self, size: 0) { throw .spaceLow(refusal) }
                if let limits, dropOnly,
                    let refusal = limits.producerRefusal(waitingCounts(), size: size, counting: false)
                {
                    throw .queueFull(refusal)
                }
            }
            // Complete on the disk before its name appears in new/.
            do throws(Errno) { try fd.sync() } catch { throw .write(path: stage, error) }
        } catch {
            try? removeTemporary(temporary)
            throw error
        }
        CrashPoint.reach("enqueue.written")
        stage = displayPath(.new, final)
        do throws(Errno) {
            try publish(temporary, as: final)
        } catch .crossDevice {
            try? removeTemporary(temporary)
            throw .otherFileSystem(path: "\(path)/tmp")
        } catch {
            try? removeTemporary(temporary)
            throw .write(path: stage, error)
        }
        CrashPoint.reach("enqueue.published")
        if dropOnly { noteDropped(by: UserDatabase.effectiveUser, sizes: [size]) }
        do throws(Errno) {
            try syncPublished([final], opened: fd)
        } catch {
            throw .write(path: "\(path)/new", error)
        }
        return id
    }
}

/// Where a payload being enqueued comes from.
package enum PayloadSource: Sendable {
    /// An open input (a file, standard input) read to its end; `source` names it in messages; `progress`
    /// shows the copy on a terminal.
    case input(FileDescriptor, source: String, progress: ProgressMeter? = nil)
    /// Bytes already in memory (a body a command line built).
    case bytes([UInt8])
}

extension Spool {
    /// Copies a payload from its input to the file being enqueued, in pieces, refusing past `limit` bytes.
    func copyPayload(from payload: (input: FileDescriptor, source: String), to fd: FileDescriptor, at path: String,
                     limit: Int64, progress: ProgressMeter? = nil) throws(EnqueueError) {
        let capacity = 256 * 1024
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
        defer { buffer.deallocate() }
        // A regular file's size is the whole to come; a pipe's is not known.
        let status = try? payload.input.status()
        progress?.start(path, total: status.flatMap { $0.isRegularFile ? Int64($0.size) : nil })
        defer { progress?.finish(path) }
        var copied: Int64 = 0
        while true {
            let count: Int
            do throws(Errno) { count = try payload.input.read(into: buffer, count: capacity) } catch {
                throw .payloadUnreadable(source: payload.source, error)
            }
            if count == 0 { return }
            copied += Int64(count)
            guard copied <= limit else { throw .payloadTooLarge(size: copied, limit: limit) }
            do throws(Errno) { try fd.writeAll(Array(UnsafeRawBufferPointer(start: buffer, count: count))) } catch {
                throw .write(path: path, error)
            }
            progress?.update(path, done: copied)
        }
    }
}

extension RetryState {
    /// The state of `operation` as admitted or enqueued: never tried, due at its `not_before`.
    package init(for operation: Operation, orderMicroseconds: Int64) {
        self.init(for: operation, orderMicroseconds: orderMicroseconds, scope: nil)
    }

    /// The state of a new operation in the order of `scope`'s producer (`Spool.keyScope`), or the shared one.
    package init(for operation: Operation, orderMicroseconds: Int64, scope: UInt32?) {
        self.init(
            orderMicroseconds: orderMicroseconds, keyHash: RetryState.keyHash(operation.key, scope: scope),
            priority: operation.priority,
            dueSeconds: operation.notBefore ?? 0)
        originHash = OrderingKey.originHash(operation.origin)
    }

    /// The hash of an ordering key, in a producer's own order when `scope` names them (`Spool.keyScope`).
    package static func keyHash(_ key: String, scope: UInt32?) -> UInt64 {
        OrderingKey.hash(scope.map { key + "\u{0}uid=\($0)" } ?? key)
    }
}

/// What became of a write handed to `enqueueFolding`.
package enum Enqueued: Sendable, Equatable {
    /// Queued as its own operation, with this id.
    case queued(String)
    /// Folded into what waited on its key (merged, or a DELETE that cancelled a queued create).
    case folded(Folding)
    /// A merge queued as its own operation, with this id, because the file system could not merge it into
    /// `into` (see `FoldOutcome.queueNotMerged`).
    case queuedNotMerged(String, into: String)
}

extension Spool {
    /// Whether `operation` is folded into what waits on its key before it is queued: a `merge` write or a
    /// DELETE, unless this process is a producer of a shared spool, who cannot list what waits (the sender
    /// folds at admission instead).
    package func foldsAtEnqueue(_ operation: Operation) -> Bool {
        !dropOnly && (operation.merge || (operation.handler == nil && operation.method == "DELETE"))
    }

    /// `enqueue`, but a `merge` write or a DELETE is first folded into what waits on its key, under the spool
    /// lock (`Spool+Fold.swift`); only when nothing takes it is it queued as its own operation.
    package func enqueueFolding(
        _ operation: Operation, maxSize: Int = Spool.defaultMaxDocumentSize, limits: QueueLimits? = nil,
        payload: PayloadSource? = nil, maxPayload: Int64 = Spool.defaultMaxPayloadSize
    ) throws(EnqueueError) -> Enqueued {
        if foldsAtEnqueue(operation) {
            let outcome: FoldOutcome
            do {
                outcome = try withLock { transaction throws(SystemCallError) in
                    try transaction.fold(operation, log: .silent)
                }
            } catch {
                throw .write(path: error.path, error.error)
            }
            switch outcome {
            case let .folded(folded): return .folded(folded)
            case .queue: break
            case let .queueNotMerged(into):
                let id = try enqueue(
                    operation, maxSize: maxSize, limits: limits, payload: payload, maxPayload: maxPayload)
                return .queuedNotMerged(id, into: into)
            }
        }
        return .queued(
            try enqueue(operation, maxSize: maxSize, limits: limits, payload: payload, maxPayload: maxPayload))
    }
}
