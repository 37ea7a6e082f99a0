import Glibc

extension Spool {
    /// Reads and checks the operation file `name` in `folder` without following links or blocking on FIFOs.
    /// Returns nil when the entry vanished (another worker moved it first).
    public func readOperation(_ folder: Folder, _ name: FileName, maxSize: Int) throws(Rejection) -> (operation: Operation, modified: Int64)? {
        let fd: FileDescriptor
        do {
            // O_NONBLOCK: opening a FIFO for reading must not wait for a writer.
            fd = try directory(folder).open(name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY)
        } catch .noSuchFileOrDirectory {
            return nil
        } catch .tooManySymbolicLinkLevels {
            throw .symbolicLink
        } catch {
            throw .unreadable(error)
        }
        defer { fd.close() }
        let status: FileStatus
        do { status = try fd.status() } catch { throw .unreadable(error) }
        guard status.isRegularFile else { throw .notRegularFile(kind: status.kindDescription) }
        guard status.linkCount == 1 else { throw .hardLinked(count: status.linkCount) }
        guard status.size <= maxSize else { throw .tooLarge(size: status.size, limit: maxSize) }
        let bytes: [UInt8]
        do {
            let read = try fd.readAll(limit: maxSize)
            if read.truncated { throw Rejection.tooLarge(size: max(status.size, maxSize + 1), limit: maxSize) }
            bytes = read.bytes
        } catch let error as Rejection {
            throw error
        } catch {
            throw .unreadable(error as! Errno)
        }
        do {
            return (try Operation(bytes: bytes), status.modifiedMicroseconds)
        } catch {
            throw .invalid(error)
        }
    }
}
