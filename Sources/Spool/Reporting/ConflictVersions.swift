import SpoolDocument
import SpoolQueue

/// A conflict as a person compares it: my write beside the server's version that spool-send fetched
/// (`ServerVersion`), each as text (JSON pretty-printed), their diff, and the ETags that say which
/// versions they are. What `spool-ctl show` and the triage page print; never sent anywhere.
package struct ConflictVersions: Sendable {
    /// My write's body as text.
    package var mine: String
    /// The version my write was made against: its `If-Match`, if it had one.
    package var mineETag: String?
    /// My body as JSON, when it is JSON.
    package var mineJSON: JSON?
    /// The server's version as text; nil when none was fetched.
    package var theirs: String?
    /// The server's version's ETag: the fetched one, else the one its conflict answer carried.
    package var theirsETag: String?
    /// The server's version as JSON, when it is JSON.
    package var theirsJSON: JSON?
    /// What to know about the server's version: why there is none, that it was cut, a status other than 200.
    package var theirsNote: String?

    /// The versions of a conflict from its operation (nil when unreadable) and its reason read with its body.
    package init(operation: Operation?, reason: FilingReason) {
        mineETag = operation?.ifMatch
        if let operation, let payload = operation.payload {
            mine = "(a payload of \(payload.length) bytes, in the spool file; not shown)"
        } else if let operation {
            (mine, mineJSON) = ConflictVersions.text(operation.body ?? [])
        } else {
            mine = "(the operation's document cannot be read)"
        }
        theirsETag = ConflictVersions.serverETag(reason)
        if let error = reason["theirs-error"] {
            theirsNote = error
        } else if reason["theirs-status"] == nil {
            theirsNote = "not fetched (spool-send --no-fetch-on-conflict, or filed before spool fetched versions)"
        } else {
            if let status = reason["theirs-status"], status != "200" {
                theirsNote = "the server answered HTTP \(status)"
            }
            if let cut = reason["theirs-cut"] { theirsNote = (theirsNote.map { $0 + "; " } ?? "") + cut }
            (theirs, theirsJSON) = ConflictVersions.text(reason.body ?? [])
        }
    }

    /// The server's version's ETag in a conflict's reason: the fetched one, else the one the conflict answer
    /// carried. Its fields only: no need to read the kept body.
    package static func serverETag(_ reason: FilingReason) -> String? { reason["theirs-etag"] ?? reason["etag"] }

    /// Bytes as a person reads them: pretty JSON, else the text, else a note that they are not text.
    static func text(_ bytes: [UInt8]) -> (String, JSON?) {
        if !bytes.isEmpty, let json = try? JSON.parse(bytes) { return (json.prettyText, json) }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            return ("(\(bytes.count) bytes, not text)", nil)
        }
        return (text, nil)
    }

    /// Whether both versions are JSON: `--edit` then starts from a merge view.
    package var bothJSON: Bool { mineJSON != nil && theirsJSON != nil }

    /// The diff from the server's version to mine: what keeping mine would change on the server.
    package var diff: UnifiedDiff { UnifiedDiff(old: theirs ?? "", new: mine) }

    /// `diff -u` text with both versions' ETags in its labels.
    package var diffText: String {
        diff.text(
            oldLabel: "theirs" + (theirsETag.map { " (ETag \($0))" } ?? ""),
            newLabel: "mine" + (mineETag.map { " (made against \($0))" } ?? ""))
    }

    /// My body with each differing run shown both ways between git's conflict markers, for an editor:
    /// the person keeps a side (or writes a third) and deletes the markers.
    package var mergeView: String {
        var out = "", mineRun: [String] = [], theirsRun: [String] = []
        func flush() {
            guard !mineRun.isEmpty || !theirsRun.isEmpty else { return }
            out += "<<<<<<< mine\n" + mineRun.map { $0 + "\n" }.joined() + "=======\n"
            out += theirsRun.map { $0 + "\n" }.joined() + ">>>>>>> theirs\n"
            mineRun = []
            theirsRun = []
        }
        for line in UnifiedDiff.script(UnifiedDiff.lines(theirs ?? ""), UnifiedDiff.lines(mine)) {
            switch line.mark {
            case "-": theirsRun.append(line.text)
            case "+": mineRun.append(line.text)
            default:
                flush()
                out += line.text + "\n"
            }
        }
        flush()
        return out
    }
}
