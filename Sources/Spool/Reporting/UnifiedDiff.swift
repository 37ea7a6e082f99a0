
/// Two texts compared line by line, in the unified format of `diff -u` (POSIX), from the standard library's
/// own difference (Myers' algorithm): how `spool-ctl show --diff` and the triage page show mine against theirs.
package struct UnifiedDiff: Sendable, Equatable {
    /// One line of the comparison: kept in both (" "), only in the old text ("-"), only in the new one ("+").
    package struct Line: Sendable, Equatable {
        /// " ", "-" or "+".
        package var mark: Character
        /// The line, without its newline.
        package var text: String
    }

    /// A run of changes with up to `context` kept lines around it, and where it starts in each text.
    package struct Hunk: Sendable, Equatable {
        /// `@@ -a,b +c,d @@`.
        package var header: String
        /// Its lines in order.
        package var lines: [Line]
    }

    /// The hunks; none when the texts are the same.
    package var hunks: [Hunk]

    /// The comparison of `old` with `new`, with `context` kept lines around each change.
    package init(old: String, new: String, context: Int = 3) {
        let before = UnifiedDiff.lines(old), after = UnifiedDiff.lines(new)
        let script = UnifiedDiff.script(before, after)
        hunks = UnifiedDiff.hunks(script, context: context)
    }

    /// The text of `diff -u` with these labels, or the empty string when nothing differs.
    package func text(oldLabel: String, newLabel: String) -> String {
        guard !hunks.isEmpty else { return "" }
        var out = "--- \(oldLabel)\n+++ \(newLabel)\n"
        for hunk in hunks {
            out += hunk.header + "\n"
            for line in hunk.lines { out += "\(line.mark)\(line.text)\n" }
        }
        return out
    }

    /// The lines of `text`, without the empty one a final newline leaves.
    package static func lines(_ text: String) -> [String] {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    /// Every line of both texts in order, each marked: removals before insertions within a change.
    package static func script(_ old: [String], _ new: [String]) -> [Line] {
        var removed = Set<Int>(), inserted = Set<Int>()
        for change in new.difference(from: old) {
            switch change {
            case let .remove(offset, _, _): removed.insert(offset)
            case let .insert(offset, _, _): inserted.insert(offset)
            }
        }
        var script: [Line] = []
        var i = 0, j = 0
        while i < old.count || j < new.count {
            if i < old.count, removed.contains(i) {
                script.append(Line(mark: "-", text: old[i]))
                i += 1
            } else if j < new.count, inserted.contains(j) {
                script.append(Line(mark: "+", text: new[j]))
                j += 1
            } else {
                script.append(Line(mark: " ", text: old[i]))
                i += 1
                j += 1
            }
        }
        return script
    }

    /// The script cut into hunks: changes closer than twice `context` share one.
    private static func hunks(_ script: [Line], context: Int) -> [Hunk] {
        let changed = script.indices.filter { script[$0].mark != " " }
        guard let first = changed.first else { return [] }
        var ranges: [ClosedRange<Int>] = []
        var start = first, end = first
        for index in changed.dropFirst() {
            if index - end > 2 * context {
                ranges.append(start...end)
                start = index
            }
            end = index
        }
        ranges.append(start...end)
        // Line numbers before each script entry, in the old and the new text.
        var oldBefore = [Int](), newBefore = [Int]()
        var o = 0, n = 0
        for line in script {
            oldBefore.append(o)
            newBefore.append(n)
            if line.mark != "+" { o += 1 }
            if line.mark != "-" { n += 1 }
        }
        return ranges.map { range in
            let lower = max(0, range.lowerBound - context), upper = min(script.count - 1, range.upperBound + context)
            let lines = Array(script[lower...upper])
            let oldCount = lines.filter { $0.mark != "+" }.count, newCount = lines.filter { $0.mark != "-" }.count
            let oldStart = oldBefore[lower] + (oldCount > 0 ? 1 : 0)
            let newStart = newBefore[lower] + (newCount > 0 ? 1 : 0)
            return Hunk(header: "@@ -\(oldStart),\(oldCount) +\(newStart),\(newCount) @@", lines: lines)
        }
    }
}
