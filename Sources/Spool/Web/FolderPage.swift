import SpoolQueue
import SpoolReporting
import SpoolSystem

/// One page of a filed folder, oldest first: the names are listed (no file opened), sorted by id, which
/// begins with the enqueue time, and only the page's operations are read. A folder of any size costs one
/// listing and `limit` reads.
struct FolderPage {
    /// How many operations the folder holds.
    let total: Int
    /// The page's operations.
    let items: [QueueItem]

    init(spool: Spool, folder: Spool.Folder, offset: Int, limit: Int) throws {
        var names: [FileName] = []
        try spool.forEachEntry(in: folder) { name, _ in
            if !name.isHidden, name.string?.hasSuffix(".why") != true { names.append(name) }
        }
        names.sort()
        total = names.count
        let page = names.dropFirst(max(0, offset)).prefix(max(0, limit))
        items = page.compactMap { spool.item(folder, $0, maxSize: Spool.defaultMaxDocumentSize) }
    }
}
