import Glibc
import SpoolDocument
import SpoolNames
import SpoolSystem

extension Spool {
    /// Reads and checks the operation file `name` in `folder` without following links or blocking on FIFOs.
    /// Returns nil when the entry vanished (another worker moved it first) or may be a move in progress.
    /// Only the file's content rejects it; any other error is a `SystemCallError`. A file with a second name in
    /// the spool (a move cut short) is `.twin`, for the caller to resolve under the lock; with `keptTwin`,
    /// the name that resolution would keep is read as it is.
    ///
    /// A document that says `"payload": true` is the file's first line, and the payload every byte after it:
    /// `maxSize` bounds the line, `maxPayload` the rest, which is not read here (`operation.payload` says
    /// where it lies). Any other document is the whole file.
    package func readOperation(
        _ folder: Folder, _ name: FileName, maxSize: Int, maxPayload: Int64 = Spool.defaultMaxPayloadSize,
        keptTwin: Bool = false
    ) throws(ReadError) -> (operation: Operation, modified: Int64)? {
        try readOperationAndStatus(folder, name, maxSize: maxSize, maxPayload: maxPayload, keptTwin: keptTwin)
            .map { ($0.operation, $0.status.modifiedMicroseconds) }
    }

    /// `readOperation`, with the status of the file read (which file it was, its size and time).
    package func readOperationAndStatus(
        _ folder: Folder, _ name: FileName, maxSize: Int, maxPayload: Int64 = Spool.defaultMaxPayloadSize,
        keptTwin: Bool = false
    ) throws(ReadError) -> (operation: Operation, status: FileStatus)? {
        // The path is built only for a message: reading is the per-operation path.
        func failure(_ error: Errno) -> ReadError {
            switch error.faultClass {
            case .content:
                switch error {
                case .tooManySymbolicLinkLevels: .rejected(.symbolicLink)
                case .noSuchDevice: .rejected(.notRegularFile(kind: "special file"))
                default: .rejected(.unreadable(error))
                }
            case .vanished, .resource, .permission, .storage, .disconnected:
                .fault(SystemCallError("read", displayPath(folder, name), error))
            }
        }
        let fd: FileDescriptor
        do {
            // O_NONBLOCK: opening a FIFO for reading must not wait for a writer.
            fd = try directory(folder).open(name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY)
        } catch .noSuchFileOrDirectory {
            return nil
        } catch .permissionDenied {
            // Someone else's file that this sender may not read (a shared spool's producer who made it 0600):
            // the file's fault, not the spool's. One's own unreadable file is the spool's fault.
            guard let status = try? directory(folder).status(of: name), status.owner != UserDatabase.effectiveUser
            else { throw failure(.permissionDenied) }
            throw .rejected(.closedToSender(owner: status.owner, mode: UInt32(status.mode)))
        } catch {
            throw failure(error)
        }
        defer { fd.close() }
        var status: FileStatus
        do { status = try fd.status() } catch { throw failure(error) }
        guard status.isRegularFile else { throw .rejected(.notRegularFile(kind: status.kindDescription)) }
        if status.linkCount > 1 {
            let found: Twin?
            do { found = try twin(of: folder, name, status) } catch { throw failure(error) }
            if let found {
                guard keptTwin, !found.dropsThisName else { throw .twin(found) }
            } else {
                // Counted again: a move by link + unlink may have finished since the first look.
                do { status = try fd.status() } catch { throw failure(error) }
                if status.linkCount > 1 {
                    // Where moves are links, a count that changed just now may be a move in progress between
                    // two other workers: too early to call it a link from outside.
                    if storage.movesByLink, SharedStorage.isInMotion(changedSeconds: status.changedSeconds) {
                        return nil
                    }
                    throw .rejected(.hardLinked(count: status.linkCount))
                }
            }
        }
        // A first piece: a document is small, and a payload's must not cost a read of its payload's first
        // megabyte for every look at it (intake, the lane, spool-ctl list). The rest only when the piece is
        // not all of the file and holds no payload document.
        let firstPiece = min(maxSize, Spool.firstReadSize)
        var read: (bytes: [UInt8], truncated: Bool)
        do { read = try fd.readPrefix(limit: firstPiece, expectedSize: status.size) } catch { throw failure(error) }
        if read.truncated {
            do throws(ReadError) {
                var operation = try Spool.operation(
                    read.bytes, truncated: true, fileSize: Int64(status.size), maxSize: maxSize, maxPayload: maxPayload)
                operation.producer = users.producer(owner: status.owner, name: name)
                return (operation, status)
            } catch {
                guard firstPiece < maxSize, case .rejected = error else { throw error }
                do {
                    read = try fd.readPrefix(limit: maxSize, expectedSize: status.size)
                } catch {
                    throw failure(error)
                }
            }
        }
        var operation = try Spool.operation(
            read.bytes, truncated: read.truncated || status.size > maxSize, fileSize: Int64(status.size),
            maxSize: maxSize, maxPayload: maxPayload)
        operation.producer = users.producer(owner: status.owner, name: name)
        return (operation, status)
    }

    /// How much of an operation file the first read takes.
    static let firstReadSize = 64 * 1024

    /// The operation in a file's first bytes (`bytes`, all of it unless `truncated`): the whole file, or the
    /// first line of one with a payload.
    static func operation(_ bytes: [UInt8], truncated: Bool, fileSize: Int64, maxSize: Int, maxPayload: Int64)
        throws(ReadError) -> Operation
    {
        var whole: OperationError?
        if !truncated {
            do {
                let operation = try Operation(bytes: bytes)
                if !operation.hasPayload { return operation }
            } catch {
                whole = error
            }
        }
        // A payload's document is the first line; without one, the file is what it was read as.
        guard let newline = bytes.firstIndex(of: 0x0A), var operation = try? Operation(bytes: Array(bytes[..<newline])),
              operation.hasPayload
        else {
            if let whole { throw .rejected(.invalid(whole)) }
            if truncated { throw .rejected(.tooLarge(size: Int(max(fileSize, Int64(maxSize) + 1)), limit: maxSize)) }
            throw .rejected(
                .invalid(
                    .invalidName(
                        field: "payload", value: "true",
                        why: "needs the document on the file's first line, the payload after it")))
        }
        let span = PayloadSpan(offset: Int64(newline) + 1, length: fileSize - Int64(newline) - 1)
        guard span.length <= maxPayload else { throw .rejected(.payloadTooLarge(size: span.length, limit: maxPayload)) }
        operation.payload = span
        return operation
    }

    /// Opens the payload of a claimed operation to stream it: the file must still be the size it was read at,
    /// or a producer wrote it after its rename into `new/` and it is rejected, never sent short.
    package func openPayload(_ claimed: QueueEntry, _ span: PayloadSpan) throws(ReadError) -> FileDescriptor {
        let fd: FileDescriptor
        do {
            fd = try directory(.cur).open(claimed.fileName, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY)
        } catch {
            throw .fault(SystemCallError("open the payload of", displayPath(.cur, claimed.fileName), error))
        }
        let status: FileStatus
        do { status = try fd.status() } catch {
            fd.close()
            throw .fault(SystemCallError("read", displayPath(.cur, claimed.fileName), error))
        }
        // The same file the read checked: regular, one name, not a link swapped in since.
        guard status.isRegularFile, status.linkCount == 1 else {
            fd.close()
            throw .rejected(
                status.isRegularFile
                    ? .hardLinked(count: status.linkCount) : .notRegularFile(kind: status.kindDescription))
        }
        let size = Int64(status.size)
        guard size == span.offset + span.length else {
            fd.close()
            throw .rejected(.payloadChanged(size: size, expected: span.offset + span.length))
        }
        return fd
    }
}
