import Glibc
import SpoolNames
import SpoolSystem
import Synchronization

/// Who uses a spool, in one place, so that the one-user path reads as a plain spool's: its owner (and root)
/// keep every right and share one order per key, and what anyone else drops is a *producer's* (spool(5),
/// "A spool for many users"), held to the producer policy and ordered on its own (`keyScope`), whose entry in
/// the way of a move into `new/` is set aside (`setAside`). Who dropped a file is its owner, which every
/// rename keeps and no producer can forge.
package final class SpoolUsers: Sendable {
    /// The owner of the spool's folder.
    package let owner: UInt32
    /// Whether others than the owner may drop into `new/` (its group or others may write it): spool(5)'s
    /// shared layout, where a name's order is taken as its owner's only (`Spool.laneKey`).
    package let takesProducerDrops: Bool
    /// What moves set out of their way in `new/` (`setAside`), a log line each, until a worker says them.
    private let setAsideNotes = Locked<[String]>([])

    init(owner: UInt32, takesProducerDrops: Bool) {
        self.owner = owner
        self.takesProducerDrops = takesProducerDrops
    }

    /// Whether what `uid` drops is a producer's: anyone but root and the spool's owner.
    package func isProducer(_ uid: UInt32) -> Bool { uid != 0 && uid != owner }

    /// Whose order an operation dropped by `producer` keeps: nil (the one shared order per key) for the spool's
    /// owner and root, else the producer's own, so that one producer's writes never hold back another's.
    package func keyScope(of producer: UInt32?) -> UInt32? {
        guard let producer, isProducer(producer) else { return nil }
        return producer
    }

    /// The mode of an operation file this process writes: the owner's alone when this process is the spool's
    /// owner, else readable by the group too, for the sender (root's drops into a shared spool included).
    package var writtenFileMode: mode_t {
        UserDatabase.effectiveUser == owner ? Spool.fileMode : Spool.droppedFileMode
    }

    /// Whose write the file of `fileOwner` named `name` is. A producer's file is theirs, whatever its name
    /// says; a file of the owner or root is the producer's its name's `u=` names (a producer's write the owner
    /// rewrote: `resolve`, `retry --if-match`, which only root can give back), else theirs. No producer can
    /// make a file of the owner's, nor rename one in the sticky `new/`.
    package func producer(owner fileOwner: UInt32, name: FileName) -> UInt32 {
        // The parse only for a name with a `,u=`: every read asks this, and lanes of every name of a shared
        // spool.
        guard !isProducer(fileOwner), SpoolUsers.mayNameProducer(name.bytes),
              let producer = QueueName(name)?.state?.producer, isProducer(producer)
        else { return fileOwner }
        return producer
    }

    /// Whether `bytes` hold `,u=`, without which a name names no producer.
    private static func mayNameProducer(_ bytes: [UInt8]) -> Bool {
        guard bytes.count > 3 else { return false }
        for index in 0..<(bytes.count - 3)
        where bytes[index] == UInt8(ascii: ",") && bytes[index + 1] == UInt8(ascii: "u")
            && bytes[index + 2] == UInt8(ascii: "=")
        {
            return true
        }
        return false
    }

    /// Renames the entry of `new/` named `name`, which stands in the way of a move into `new/` of the file
    /// whose inode is `movingInode`, to a hidden name no run reads, when it is a producer's (not root's, not the
    /// spool owner's) and not a second name of the file moving: a producer who takes the name that another's
    /// write or a claim given back is to have (it is predictable) must hold neither that write nor the run
    /// back. The spool's owner may rename any entry of its sticky `new/`, a directory too, within the folder.
    /// Returns whether it did; says so in the notes `takeSetAsideNotes` hands out, `display` naming entries.
    func setAside(
        _ name: FileName, in new: FileDescriptor, movingInode: UInt64?, display: (FileName) -> String
    ) -> Bool {
        guard let status = try? new.status(of: name), isProducer(status.owner), movingInode != status.inode
        else { return false }
        // Not a spool move: where the file system lacks RENAME_NOREPLACE, `link` cannot move a directory.
        // There, a plain rename to a name made unique here, which nothing else holds.
        let aside = FileName(".in-the-way." + UniqueName.next().id)
        do throws(Errno) {
            try new.rename(name, to: new, as: aside)
        } catch .invalidArgument, .notImplemented {
            guard (try? new.replace(name, in: new, as: aside)) != nil else { return false }
        } catch {
            return false
        }
        setAsideNotes.withLock {
            $0.append("\(display(name)), made by \(UserDatabase.display(status.owner)), took the name a "
                + "move needed; set aside as \(display(aside)) for its maker to remove")
        }
        return true
    }

    /// What moves set out of their way in `new/` since the last call (`setAside`), a log line each.
    package func takeSetAsideNotes() -> [String] {
        setAsideNotes.withLock { notes in
            defer { notes = [] }
            return notes
        }
    }
}
