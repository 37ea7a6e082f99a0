import Glibc
import SpoolSystem

/// `.filing.FOLDER.ID` in the spool directory: written before an operation is filed in `failed/` or
/// `conflict/` or taken out of one (`spool-ctl retry`, `discard`), removed once the change is complete.
///
/// Why: those changes are two steps (the reason `ID.why` and the operation), and a crash between them leaves
/// one without the other. Housekeeping finds what to finish from these markers, a few names in the spool
/// directory, instead of listing `failed/` and `conflict/` (which grow with every filing) on every run.
extension Spool {
    /// The marker's prefix; the folder and the id follow it, dot-separated (folder names hold no dot).
    static let filingMarkerPrefix = ".filing."

    /// The marker of a change of `id` in `folder`.
    static func filingMarker(_ folder: Folder, _ id: String) -> FileName {
        FileName(filingMarkerPrefix + folder.rawValue + "." + id)
    }

    /// Writes the marker of a change of `id` in `folder` and syncs the spool directory, so that a reason that
    /// outlives a power cut has its marker too. A failure is ignored: the change is made all the same, and
    /// only a crash in its middle would then wait for an operator (`spool-ctl check`).
    package func markFiling(_ folder: Folder, _ id: String) {
        let flags = O_WRONLY | O_CREAT | O_NOFOLLOW
        guard let fd = try? root.open(Spool.filingMarker(folder, id), flags, mode: Spool.fileMode) else { return }
        keepForOwner(fd)
        fd.close()
        try? root.sync()
    }

    /// Removes the marker once the change of `id` in `folder` is complete.
    package func clearFiling(_ folder: Folder, _ id: String) {
        try? root.unlink(Spool.filingMarker(folder, id))
    }

    /// Whether `folder` holds the reason `ID.why`.
    package func hasReason(of id: String, in folder: Folder) -> Bool {
        (try? directory(folder).status(of: FileName(id + ".why"))) != nil
    }

    /// The changes whose markers are left: the folder, the id, and how many seconds ago the marker was made.
    package func markedFilings(nowSeconds: Int64) throws(Errno) -> [(folder: Folder, id: String, age: Int64)] {
        var marked: [(Folder, String, Int64)] = []
        try root.forEachEntry { name, _ in
            guard let text = name.string, text.hasPrefix(Spool.filingMarkerPrefix) else { return }
            let rest = text.dropFirst(Spool.filingMarkerPrefix.count)
            guard let dot = rest.firstIndex(of: "."), let folder = Folder(rawValue: String(rest[..<dot])),
                  folder == .failed || folder == .conflict
            else { return }
            let id = String(rest[rest.index(after: dot)...])
            let changed = (try? root.status(of: name).changedSeconds) ?? nowSeconds
            marked.append((folder, id, nowSeconds - changed))
        }
        return marked
    }
}
