import Glibc
import SpoolConfiguration
import SpoolControl
import SpoolDocument
import SpoolHandlers
import SpoolNames
import SpoolQueue
import SpoolReporting
import SpoolSending
import SpoolSystem
import SpoolTransport

/// The aligned columns of `list` and `show`: every cell one line, its control characters escaped.
extension ControlSession {
    /// Rows as aligned columns, the last one unpadded.
    package static func table(_ rows: [[String]]) -> String {
        table(rows, widths: widths(rows))
    }

    /// The widest cell of each column.
    package static func widths(_ rows: [[String]]) -> [Int] {
        guard let first = rows.first else { return [] }
        var widths = [Int](repeating: 0, count: first.count)
        for row in rows {
            for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.replacingControlCharacters().count) }
        }
        return widths
    }

    /// Rows padded to `widths` (a longer cell keeps two spaces after it), the last column unpadded. A cell is
    /// one line whatever a producer or a server put in it: its control characters are escaped.
    package static func table(_ rows: [[String]], widths: [Int]) -> String {
        guard !rows.isEmpty else { return "" }
        return rows.map { row in
            row.map { $0.replacingControlCharacters() }.enumerated().map { i, cell in
                i == row.count - 1 ? cell : cell + String(repeating: " ", count: max(widths[i] - cell.count, 0) + 2)
            }.joined()
        }.joined(separator: "\n") + "\n"
    }
}
