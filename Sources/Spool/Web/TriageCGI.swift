import Glibc
import Spool
import SpoolConfiguration
import SpoolControl
import SpoolDocument
import SpoolNames
import SpoolQueue
import SpoolReporting
import SpoolSystem

/// `spool-ctl cgi`: the triage page as a CGI/1.1 program (RFC 3875). The web server the admin runs starts
/// it once per request and does the authentication; this program renders the queue as HTML (`TriagePage`)
/// and carries out the buttons' POSTs as spool-ctl's own subcommands, logged with `REMOTE_USER`. It reads
/// and moves only inside the spool, through the same library calls as spool-ctl, and never runs a handler.
package struct TriageCGI {
    let command: ControlCommand

    /// The program for this parsed `spool-ctl cgi` command line.
    package init(command: ControlCommand) { self.command = command }

    /// Answers the request this process was started for, on standard output; the exit status is 0 whenever
    /// an answer was written, as the web server expects.
    package func run() -> Int32 {
        let request = CGIRequest.current()
        var response = answer(request)
        if request.method == "HEAD" { response.body = "" }
        Program.printOut(response.text)
        return 0
    }

    /// The answer to `request`.
    func answer(_ request: CGIRequest) -> CGIResponse {
        let path = Spool.defaultPath(option: command.spool)
        let spool: Spool
        do { spool = try Spool(path: path, create: false) } catch {
            let message = "The spool cannot be opened: \(error)" + TriageCGI.who(error)
            return TriageCGI.error(500, "Internal Server Error", message)
        }
        var token: CSRFToken?
        if let secretPath = Environment.value("SPOOL_CGI_SECRET"), !secretPath.isEmpty {
            do { token = try CSRFToken.load(path: secretPath, spoolPath: spool.path) } catch {
                Program.printError("spool-ctl cgi: \(error)\n")
                return TriageCGI.error(500, "Internal Server Error", error.description)
            }
        }
        let nowSeconds = Timestamp.nowSeconds()
        let mayAct = TriageCGI.mayAct(request.remoteUser, actors: Environment.value("SPOOL_CGI_ACTORS"))
        let formToken = token.flatMap { token in
            mayAct ? { [user = request.remoteUser, path = spool.path] action in
                token.token(user: user, spoolPath: path, action: action, issuedAt: nowSeconds)
            } : nil
        }
        var page = TriagePage(spool: spool, request: request, token: formToken, nowSeconds: nowSeconds)
        page.onlyLooks = token != nil && !mayAct
        switch request.method {
        case "GET", "HEAD":
            // A change is never made by a link: a GET that names an action is refused, not carried out.
            if request.query["action"] != nil {
                return TriageCGI.error(
                    405, "Method Not Allowed", "Changes are made with the page's buttons (POST), never by a link.",
                    headers: ["Allow: POST"])
            }
            return view(page, request)
        case "POST":
            guard let token else {
                return TriageCGI.error(403, "Forbidden", "Actions are off: SPOOL_CGI_SECRET names no secret file.")
            }
            guard mayAct else {
                return TriageCGI.error(
                    403, "Forbidden", "SPOOL_CGI_ACTORS does not name \(request.remoteUser ?? "you") among those who "
                        + "may act on the queue; you may look.")
            }
            guard token.verifies(
                request.form["token"], user: request.remoteUser, spoolPath: spool.path,
                action: request.form["action"] ?? "", nowSeconds: nowSeconds)
            else {
                return TriageCGI.error(
                    403, "Forbidden", "The form's token is missing, expired, or not valid for this user and action; "
                        + "reload the page.")
            }
            return act(page, request, spool)
        default:
            return TriageCGI.error(405, "Method Not Allowed", "Use GET or POST.", headers: ["Allow: GET, HEAD, POST"])
        }
    }

    /// The view the query names: one operation, a folder's list, or the overview.
    func view(_ page: TriagePage, _ request: CGIRequest) -> CGIResponse {
        do {
            if let id = request.query["id"] {
                guard TriageCGI.isBareID(id), let item = try page.spool.locate(id) else {
                    return TriageCGI.error(404, "Not Found", "No operation \(id) in the spool.")
                }
                return CGIResponse(200, "OK", body: page.operation(item))
            }
            if let name = request.query["view"] {
                guard name == "failed" || name == "conflict" else {
                    return TriageCGI.error(404, "Not Found", "No view \(name): failed or conflict.")
                }
                let text = request.query["page"] ?? "0"
                guard let number = Int(text), (0...TriagePage.maxPageNumber).contains(number) else {
                    return TriageCGI.error(
                        400, "Bad Request", "No page \(text): a number from 0 to \(TriagePage.maxPageNumber).")
                }
                return CGIResponse(200, "OK", body: try page.folder(Spool.Folder(rawValue: name)!, pageNumber: number))
            }
            return CGIResponse(200, "OK", body: try page.overview())
        } catch {
            let message = "The spool cannot be read: \(error)" + TriageCGI.who(error)
            return TriageCGI.error(500, "Internal Server Error", message)
        }
    }

    /// For a refusal by permissions: which user the page runs as, and what to do. A web server started as
    /// root runs CGI programs as another user (python's http.server as nobody), which an operator following
    /// the recipe does not see.
    static func who(_ error: any Error) -> String {
        guard "\(error)".contains("\(Errno.permissionDenied)") else { return "" }
        return ". The page runs as \(UserDatabase.display(UserDatabase.effectiveUser)), which may not read the spool: "
            + "run the web server (or its CGI programs) as the spool's owner or a member of its group, "
            + "as spool-ctl(8) shows under cgi."
    }

    /// An id as the page writes it, held to the rule of ids (`OperationID`): no path, no reason file (`.why`),
    /// so that a form or a link can name nothing but an operation.
    static func isBareID(_ id: String) -> Bool {
        OperationID.isValid(id)
    }

    /// Whether `user` may act: anyone the web server let in when `actors` (`SPOOL_CGI_ACTORS`: names
    /// separated by spaces or commas) is unset, else only those it names.
    static func mayAct(_ user: String?, actors: String?) -> Bool {
        guard let actors else { return true }
        guard let user else { return false }
        return actors.split(whereSeparator: { $0 == " " || $0 == "," }).contains { $0 == user }
    }

    /// An error page with this status.
    static func error(_ status: Int, _ reason: String, _ message: String, headers: [String] = []) -> CGIResponse {
        CGIResponse(
            status, reason, headers: headers,
            body: HTML.page(title: "spool: \(reason)", body: "<h1>\(status) \(HTML.escape(reason))</h1><p>"
                + HTML.escape(message) + "</p>"))
    }
}
