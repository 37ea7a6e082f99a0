import SpoolReporting
import SpoolSystem

/// One operation on the triage page: what `spool-ctl show` prints, and for a conflict the seeds' manual
/// merge: "Your version" and "Server version" side by side, their diff, and the buttons that decide.
extension TriagePage {
    func operation(_ item: QueueItem) -> String {
        var rows: [(String, String)] = [
            ("id", item.id), ("state", "\(item.stateWord(nowSeconds: nowSeconds)) (\(item.folder.rawValue)/)"),
            ("attempts", String(item.attempts)),
            ("enqueued", Timestamp.formatRFC3339(item.orderMicroseconds / 1_000_000)
                + " (\(humanDuration(item.age(nowSeconds: nowSeconds))) ago)"),
        ]
        if let operation = item.operation {
            rows.append(("request", operation.summary))
            if operation.key != operation.url { rows.append(("key", operation.key)) }
        }
        if let problem = item.problem { rows.append(("problem", problem)) }
        let shownAbove = ["id", "folder", "source", "order", "attempts"]
        for (field, value) in item.reason.fields where !shownAbove.contains(field) {
            rows.append((field, value))
        }
        var out = "<h2>\(HTML.escape(item.id))</h2><table>"
        for (name, value) in rows { out += "<tr><th>\(HTML.escape(name))</th><td>\(HTML.escape(value))</td></tr>" }
        out += "</table><p>"
        switch item.folder {
        case .conflict:
            let versions = spool.versions(of: item)
            if versions.theirsETag != nil {
                out += button("Keep mine", action: "keep-mine", ["id": item.id])
            }
            out += button("Keep theirs", action: "keep-theirs", ["id": item.id])
                + button("Retry as it was", action: "retry", ["id": item.id])
                + button("Discard", action: "discard", ["id": item.id]) + "</p>"
            out += conflict(versions)
        case .failed:
            out += button("Retry", action: "retry", ["id": item.id])
                + button("Discard", action: "discard", ["id": item.id])
                + "</p>"
        default:
            out += "</p>"
        }
        if let document = item.operation?.document {
            out += "<h3>Document</h3><pre>\(HTML.escape(document.prettyText))</pre>"
        }
        return frame(item.id, out)
    }

    /// Mine and theirs side by side, then the diff from theirs to mine.
    func conflict(_ versions: ConflictVersions) -> String {
        var out = "<div class=\"versions\"><section><h3>Your version"
        out += versions.mineETag.map { " <span class=\"muted\">(made against \(HTML.escape($0)))</span>" } ?? ""
        out += "</h3><pre>\(HTML.escape(versions.mine))</pre></section><section><h3>Server version"
        out += versions.theirsETag.map { " <span class=\"muted\">(ETag \(HTML.escape($0)))</span>" } ?? ""
        out += "</h3>"
        if let note = versions.theirsNote { out += "<p class=\"notice\">\(HTML.escape(note))</p>" }
        if let theirs = versions.theirs { out += "<pre>\(HTML.escape(theirs))</pre>" }
        out += "</section></div>"
        if versions.theirsETag == nil {
            out += "<p class=\"notice\">No ETag of the server's version is known, so Keep mine would overwrite "
                + "blind: find the current ETag and run <code>spool-ctl retry --if-match ETAG ID</code>.</p>"
        }
        guard versions.theirs != nil else { return out }
        out += "<h3>Diff (theirs → mine)</h3><pre>"
        let diff = versions.diff
        if diff.hunks.isEmpty { out += "(the same)" }
        for hunk in diff.hunks {
            out += "<span class=\"hunk\">\(HTML.escape(hunk.header))</span>\n"
            for line in hunk.lines {
                let text = HTML.escape(String(line.mark) + line.text)
                switch line.mark {
                case "-": out += "<span class=\"del\">\(text)</span>\n"
                case "+": out += "<span class=\"add\">\(text)</span>\n"
                default: out += text + "\n"
                }
            }
        }
        return out + "</pre>"
    }
}
