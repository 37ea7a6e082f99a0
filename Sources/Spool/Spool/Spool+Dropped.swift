import SpoolDocument
import SpoolNames
import SpoolSystem

/// Files dropped in `new/` under plain names (the shell protocol), read and checked without the spool lock,
/// then admitted under short takes of it, 32 at a time: another worker, `spool-ctl` or a producer's merge
/// waits for renames, not for a whole listing's reads and filings.
extension Spool {
    /// A file dropped under a plain name, read and checked, waiting for `Transaction.admit`.
    package struct Dropped: Sendable {
        /// Its name in `new/`.
        package let fileName: FileName
        /// Its operation id (the name itself).
        package let id: String
        /// Its operation, as read.
        package let operation: Operation
        /// The file read (device, inode, size, time), which its name must still be when it is admitted.
        package let status: FileStatus
        /// Its modification time in microseconds: its order stamp once admitted.
        package var modified: Int64 { status.modifiedMicroseconds }

        /// Whether `found` (a status of its name taken now) is the file that was read, unchanged.
        package func isSameFile(as found: FileStatus) -> Bool {
            found.device == status.device && found.inode == status.inode && found.size == status.size
                && found.modifiedMicroseconds == status.modifiedMicroseconds
        }
    }

    /// What reading a dropped file gave.
    package enum DroppedRead: Sendable {
        /// Read and checked: to admit.
        case ready(Dropped)
        /// It has a second name (a move cut short by a crash), which only a holder of the lock may resolve.
        case twin
        /// Nothing to admit: filed in `failed/`, still being written (left to settle), or gone.
        case nothing
    }

    /// Reads and checks a plain-named file in `new/`; one whose content can never be sent is filed in
    /// `failed/` (a filing needs no lock), one that does not parse yet and is younger than
    /// `settleMicroseconds` is left for a producer still writing it. Throws when the spool is at fault.
    package func readDropped(
        _ fileName: FileName, id: String, maxSize: Int, maxPayload: Int64, nowMicroseconds: Int64, log: Log
    ) throws(SystemCallError) -> DroppedRead {
        let read: (operation: Operation, status: FileStatus)?
        do {
            read = try readOperationAndStatus(.new, fileName, maxSize: maxSize, maxPayload: maxPayload)
        } catch {
            guard case let .rejected(rejection) = error else {
                if case let .fault(fault) = error { throw fault }
                return .twin
            }
            if case .invalid = rejection, let status = try? directory(.new).status(of: fileName),
               nowMicroseconds - status.modifiedMicroseconds < Spool.settleMicroseconds {
                return .nothing
            }
            if let fault = file(rejected: fileName, in: .new, id: id, rejection, log: log).fault { throw fault }
            return .nothing
        }
        guard let (operation, status) = read else { return .nothing }
        return .ready(Dropped(fileName: fileName, id: id, operation: operation, status: status))
    }

    /// How many dropped files are admitted under one take of the lock: a rename each, about a millisecond in
    /// all on a local disk, and two `flock` calls shared by many files.
    package static let admittedPerTake = 32

    /// Takes in files dropped under plain names, in the order they were written (a dropped create before the
    /// merge or DELETE that follows it): each is read and checked without the lock, and admitted (or folded)
    /// under a short take of it, `admittedPerTake` at a time; a name that is not a valid id is filed in
    /// `failed/`, and one with a retry state is not this method's (`Transaction.intake` takes it). A fault is
    /// handed to `fault` and leaves that file where it is, for the next round; the others go on, as a file
    /// that cannot be read names no key to hold back. Stops early when `isStopping` says so.
    package func admitDropped(
        _ names: [FileName], maxSize: Int, maxPayload: Int64, log: Log, isStopping: () -> Bool,
        fault: (SystemCallError) -> Void
    ) {
        var batch: [(fileName: FileName, read: DroppedRead)] = []
        for fileName in inWrittenOrder(names) where !isStopping() {
            guard let name = QueueName(fileName), name.claim == nil else {
                if let filed = fileBadName(fileName, log: log) { fault(filed) }
                continue
            }
            guard name.state == nil else { continue }
            do throws(SystemCallError) {
                let read = try readDropped(
                    fileName, id: name.id, maxSize: maxSize, maxPayload: maxPayload,
                    nowMicroseconds: Timestamp.nowMicroseconds(), log: log)
                if case .nothing = read { continue }
                batch.append((fileName, read))
            } catch {
                fault(error)
            }
            if batch.count == Spool.admittedPerTake {
                admit(batch, log: log).forEach(fault)
                batch = []
            }
        }
        admit(batch, log: log).forEach(fault)
    }

    /// Admits files read by `readDropped`, in order, under one take of the lock; returns the faults, said once
    /// the lock is let go.
    private func admit(_ batch: [(fileName: FileName, read: DroppedRead)], log: Log) -> [SystemCallError] {
        guard !batch.isEmpty else { return [] }
        do throws(SystemCallError) {
            return try withLock { transaction throws(SystemCallError) in
                var faults: [SystemCallError] = []
                for (fileName, read) in batch {
                    if case let .ready(dropped) = read {
                        do throws(SystemCallError) { _ = try transaction.admit(dropped, log: log) } catch {
                            faults.append(error)
                        }
                    } else if let failed = transaction.resolveTwin(.new, fileName, log: log).fault {
                        faults.append(failed)
                    }
                }
                return faults
            }
        } catch {
            // The lock could not be taken: nothing of the batch moved.
            return [error]
        }
    }
}
