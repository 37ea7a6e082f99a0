import SpoolConfiguration
import SpoolDocument
import SpoolHandlers
import SpoolNames
import SpoolQueue
import SpoolSystem
import SpoolTransport

/// Postfix's qshape for a spool: waiting operations by origin (rows) and age (columns), so that an admin sees
/// at a glance which server is behind and since when.
///
/// Ages come from names alone (`o=`), and so does the origin, as a hash (`h=`): one document per origin is
/// read to print its name. A name from before `h=` falls back to one read per ordering key (its first
/// operation found): a key groups the writes to one resource, which have one origin.
package struct SpoolShape: Sendable {
    /// The columns' upper bounds in minutes, as qshape's: an operation at most 5 minutes old counts under 5.
    package static let bucketMinutes: [Int64] = [5, 10, 20, 40, 80, 160, 320, 640, 1280]
    /// The row of operations whose name says nothing of its key yet (dropped, not admitted by a run).
    package static let unadmitted = "(dropped, not yet admitted)"
    /// The row of operations whose document could not be read to name their origin.
    package static let unreadable = "(unreadable)"

    /// Counts per origin: one per column and one for older than the last, in `bucketMinutes` order.
    package private(set) var rows: [String: [Int]] = [:]

    /// Counts of operations that share a hash, with one of them to read the origin from.
    private struct Group { var counts: [Int]; var folder: Spool.Folder; var name: FileName }

    /// The shape of the operations in `folders` of `spool` at `nowSeconds` (epoch seconds).
    package init(spool: Spool, folders: [Spool.Folder] = [.new, .cur], nowSeconds: Int64) throws(Errno) {
        let columns = SpoolShape.bucketMinutes.count + 1
        // Groups by origin hash (the high bit clear) or, for names without one, by key hash.
        var groups: [UInt64: Group] = [:]
        for folder in folders where folder == .failed || folder == .conflict {
            try countFiled(spool, folder, nowSeconds: nowSeconds)
        }
        for folder in folders where folder != .failed && folder != .conflict {
            try spool.forEachRawEntry(in: folder) { name, _ in
                guard let first = name.first, first != UInt8(ascii: ".") else { return }
                guard let facts = QueueName.Facts(name) else {
                    rows[SpoolShape.unadmitted, default: Array(repeating: 0, count: columns)][0] += 1
                    return
                }
                let column = SpoolShape.column(ageSeconds: nowSeconds - facts.orderMicroseconds / 1_000_000)
                let group = facts.originHash != 0 ? UInt64(facts.originHash) : facts.keyHash | 1 << 63
                if groups[group] == nil {
                    groups[group] = Group(
                        counts: Array(repeating: 0, count: columns), folder: folder, name: FileName(bytes: Array(name)))
                }
                groups[group]!.counts[column] += 1
            }
        }
        for group in groups.values {
            let read = try? spool.readOperation(
                group.folder, group.name, maxSize: Spool.defaultMaxDocumentSize, maxPayload: .max)
            let origin = read?.operation.origin ?? SpoolShape.unreadable
            var row = rows[origin, default: Array(repeating: 0, count: columns)]
            for (i, count) in group.counts.enumerated() { row[i] += count }
            rows[origin] = row
        }
    }

    /// Counts the operations filed in `folder`, named by their bare id beside their `ID.why`: each one's age is
    /// its document's (written at enqueue), its origin read from it.
    private mutating func countFiled(_ spool: Spool, _ folder: Spool.Folder, nowSeconds: Int64) throws(Errno) {
        var names: [FileName] = []
        try spool.forEachEntry(in: folder) { name, _ in
            if !name.isHidden, name.string?.hasSuffix(".why") == false { names.append(name) }
        }
        for name in names {
            guard let status = try? spool.directory(folder).status(of: name) else { continue }
            let read = try? spool.readOperation(folder, name, maxSize: Spool.defaultMaxDocumentSize, maxPayload: .max)
            let origin = read?.operation.origin ?? SpoolShape.unreadable
            let column = SpoolShape.column(ageSeconds: nowSeconds - status.modifiedMicroseconds / 1_000_000)
            rows[origin, default: Array(repeating: 0, count: SpoolShape.bucketMinutes.count + 1)][column] += 1
        }
    }

    /// The column of an operation this many seconds old.
    package static func column(ageSeconds: Int64) -> Int {
        bucketMinutes.firstIndex { max(0, ageSeconds) <= $0 * 60 } ?? bucketMinutes.count
    }

    /// The table as qshape prints it: a TOTAL row first, then origins by count, largest first.
    package var text: String {
        let columns = SpoolShape.bucketMinutes.count + 1
        var total = Array(repeating: 0, count: columns)
        for row in rows.values { for (i, count) in row.enumerated() { total[i] += count } }
        // Origins by count, largest first (then by name); the rows that are not origins last.
        func order(_ row: (key: String, value: [Int])) -> (Int, Int, String) {
            (row.key.hasPrefix("(") ? 1 : 0, -row.value.reduce(0, +), row.key)
        }
        let sorted = rows.sorted { order($0) < order($1) }
        let lines = [("", ["T"] + SpoolShape.bucketMinutes.map(String.init) + ["\(SpoolShape.bucketMinutes.last!)+"]),
                     ("TOTAL", [String(total.reduce(0, +))] + total.map(String.init))]
            + sorted.map { ($0.key, [String($0.value.reduce(0, +))] + $0.value.map(String.init)) }
        let nameWidth = lines.map(\.0.count).max() ?? 0
        let widths = (0...columns).map { i in lines.map { $0.1[i].count }.max() ?? 1 }
        return lines.map { name, cells in
            String(repeating: " ", count: nameWidth - name.count) + name
                + cells.enumerated().map { i, cell in " " + String(repeating: " ", count: widths[i] - cell.count) + cell
                }.joined()
        }.joined(separator: "\n") + "\n"
    }
}
