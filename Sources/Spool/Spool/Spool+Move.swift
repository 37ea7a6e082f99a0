import Glibc
import SpoolDocument
import SpoolNames
import SpoolSystem

/// How one queue move is made, whichever transition asks for it (`Transitions.swift`): a rename that never
/// replaces a name, `link` + `unlink` where the file system lacks `RENAME_NOREPLACE`, and a producer's entry
/// that took the name a move into `new/` needs set out of the way. Only the transitions call `move`.
extension Spool {
    /// Renames without ever replacing an entry (`SharedStorage.move`: `RENAME_NOREPLACE`, or `link` +
    /// `unlink` where the file system lacks it). A producer's entry in `new/` that holds the name is set out
    /// of the way (`SpoolUsers.setAside`) a few times: a producer who takes the name again at once is racing,
    /// and loses soon enough. Throws `noSuchFileOrDirectory` when another worker moved the entry first.
    func move(_ name: FileName, from folder: Folder, to destination: Folder, as newName: FileName)
        throws(Errno)
    {
        let source = directory(folder), target = directory(destination)
        var setAsidesLeft = 3
        while true {
            do throws(Errno) {
                try storage.move(name, from: source, to: target, as: newName)
                return
            } catch .fileExists {
                guard destination == .new, setAsidesLeft > 0,
                      users.setAside(newName, in: target, movingInode: (try? source.status(of: name))?.inode,
                                     display: { self.displayPath(.new, $0) })
                else { throw .fileExists }
                setAsidesLeft -= 1
            }
        }
    }
}
