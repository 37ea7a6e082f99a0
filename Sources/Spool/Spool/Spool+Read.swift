import Glibc
import SpoolDocument
import SpoolNames
import SpoolSystem
import SpoolTransport

extension Spool {
    /// Reads and checks the operation file `name` in `folder` without following links or blocking on FIFOs.
    /// Returns nil when the entry vanished (another worker moved it first) or may be a move in progress.
    /// Only the file's content rejects it; any other error is a `SystemCallError`. A file with a second name in
    /// the spool (a move cut short) is `.twin`, for the caller to resolve under the lock; with `keptTwin`,
    /// the name that resolution would keep is read as it is.
    public func readOperation(_ folder: Folder, _ name: FileName, maxSize: Int, keptTwin: Bool = false)
        throws(ReadError) -> (operation: Operation, modified: Int64)?
    {
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
                    if movesByLink, Timestamp.nowSeconds() - status.changedSeconds < Spool.twinSettleSeconds {
                        return nil
                    }
                    throw .rejected(.hardLinked(count: status.linkCount))
                }
            }
        }
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
