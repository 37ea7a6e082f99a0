import Glibc

extension Spool {
    /// Reads and checks the operation file `name` in `folder` without following links or blocking on FIFOs.
    /// Returns nil when the entry vanished (another worker moved it first) or is one name of a move cut short
    /// (see `resolveTwin`). Only the file's content rejects it; any other error is a `SpoolFault`.
    public func readOperation(_ folder: Folder, _ name: FileName, maxSize: Int) throws(ReadFailure) -> (operation: Operation, modified: Int64)? {
        let path = displayPath(folder, name)
        func failure(_ error: Errno) -> ReadFailure {
            switch error.faultClass {
            case .content:
                switch error {
                case .tooManySymbolicLinkLevels: .rejected(.symbolicLink)
                case .noSuchDevice: .rejected(.notRegularFile(kind: "special file"))
                default: .rejected(.unreadable(error))
                }
            case .vanished, .resource, .permission, .storage: .fault(SpoolFault("read", path, error))
            }
        }
        let fd: FileDescriptor
        do {
            // O_NONBLOCK: opening a FIFO for reading must not wait for a writer.
            fd = try directory(folder).open(name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY)
        } catch .noSuchFileOrDirectory {
            return nil
        } catch {
            throw failure(error)
        }
        defer { fd.close() }
        var status: FileStatus
        do { status = try fd.status() } catch { throw failure(error) }
        guard status.isRegularFile else { throw .rejected(.notRegularFile(kind: status.kindDescription)) }
        if status.linkCount == 2 {
            switch resolveTwin(folder, name, status) {
            case .notTwin, .kept:
                // Counted again: a move by link + unlink may have finished since the first look.
                do { status = try fd.status() } catch { throw failure(error) }
            case .removed, .inMotion: return nil
            }
        }
        guard status.linkCount == 1 else { throw .rejected(.hardLinked(count: status.linkCount)) }
        guard status.size <= maxSize else { throw .rejected(.tooLarge(size: status.size, limit: maxSize)) }
        let read: (bytes: [UInt8], truncated: Bool)
        do { read = try fd.readAll(limit: maxSize) } catch { throw failure(error) }
        if read.truncated { throw .rejected(.tooLarge(size: max(status.size, maxSize + 1), limit: maxSize)) }
        do {
            return (try Operation(bytes: read.bytes), status.modifiedMicroseconds)
        } catch {
            throw .rejected(.invalid(error))
        }
    }
}
