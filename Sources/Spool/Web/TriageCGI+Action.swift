import Glibc
import Spool
import SpoolQueue
import SpoolSystem

/// The buttons of the triage page: each is one spool-ctl subcommand, run in this process through the same
/// library calls, with what it says shown to the person and logged with `REMOTE_USER`.
extension TriageCGI {
    /// The spool-ctl arguments a button's form stands for, or nil for a form the page does not make. The id
    /// comes after `--`: an id is a name, never an option (`--all-failed` would be every failed operation).
    static func arguments(_ form: [String: String]) -> [String]? {
        let id = form["id"].flatMap { isBareID($0) ? $0 : nil }, origin = form["origin"]
        switch form["action"] {
        case "keep-mine": return id.map { ["resolve", "--keep-mine", "--", $0] }
        case "keep-theirs": return id.map { ["resolve", "--keep-theirs", "--", $0] }
        case "retry": return id.map { ["retry", "--", $0] }
        case "discard": return id.map { ["discard", "--yes", "--", $0] }
        case "hold", "release": return origin.map { [form["action"]!, "--origin", $0] }
        case "flush": return origin.map { ["flush", "--origin", $0, "--yes"] }
        default: return nil
        }
    }

    /// Carries out a verified POST and shows what it did.
    func act(_ page: TriagePage, _ request: CGIRequest, _ spool: Spool) -> CGIResponse {
        guard let arguments = TriageCGI.arguments(request.form) else {
            return TriageCGI.error(400, "Bad Request", "The form names no action the page makes.")
        }
        let parsed: ControlCommand
        do { parsed = try ControlCommand(parsing: arguments) } catch {
            return TriageCGI.error(400, "Bad Request", "\(error)")
        }
        var session = ControlSession(command: parsed, spool: spool, nowSeconds: page.nowSeconds)
        Program.transcript.withLock { $0 = "" }
        switch parsed.subcommand {
        case "resolve": session.resolve()
        case "retry": session.retry()
        case "discard": session.discard()
        case "hold": session.hold()
        case "release": session.release()
        case "flush": session.flush()
        default: break
        }
        let said = Program.transcript.withLock { kept in
            defer { kept = nil }
            return kept ?? ""
        }
        // The web server's error log is the page's log: who did what, and what it gave.
        let who = request.remoteUser ?? "(no REMOTE_USER)"
        let line = "\(who): spool-ctl \(arguments.joined(separator: " ")): "
            + said.split(separator: "\n").joined(separator: "; ")
        Program.printError("spool-ctl cgi: \(line.replacingControlCharacters())\n")
        let (status, reason) = TriageCGI.status(of: session.status)
        var body = "<h2>spool-ctl \(HTML.escape(arguments.joined(separator: " ")))</h2>"
        body += "<pre>\(HTML.escape(said))</pre><p><a href=\"\(page.href([:]))\">Back to the overview</a>"
        if let id = request.form["id"], session.status != 0 || parsed.subcommand != "discard" {
            body += " · <a href=\"\(page.href(["id": id]))\">the operation</a>"
        }
        return CGIResponse(status, reason, body: page.frame("done", body + "</p>"))
    }

    /// The HTTP status for spool-ctl's exit status.
    static func status(of exitStatus: Int32) -> (Int, String) {
        switch exitStatus {
        case 0: (200, "OK")
        case ExitCode.noInput: (404, "Not Found")
        case ExitCode.dataError: (409, "Conflict")
        case ExitCode.temporaryFailure: (503, "Service Unavailable")
        default: (500, "Internal Server Error")
        }
    }
}
