import Spool
import SpoolConfiguration
import SpoolControl
import SpoolDocument
import SpoolNames
import SpoolQueue
import SpoolReporting
import SpoolSystem

/// The triage page's views, rendered as plain HTML from the spool as it is: the overview (counts, origins,
/// handler jobs, the first filed operations), a folder's list a page at a time, and one operation (for a
/// conflict, mine and theirs side by side with their diff). Reads only; the forms post to `TriageCGI`.
struct TriagePage {
    let spool: Spool
    let request: CGIRequest
    /// The token of a form for an action; nil when actions are off (no secret configured) or this user may
    /// only look.
    let token: ((_ action: String) -> String)?
    /// Why this user has no buttons although actions are on: `SPOOL_CGI_ACTORS` does not name them.
    var onlyLooks = false
    let nowSeconds: Int64

    /// Operations per page of a list.
    static let pageSize = 50
    /// The largest page number a request may ask for: a million pages, fifty million operations.
    static let maxPageNumber = 1_000_000
    /// Filed operations shown on the overview, per folder.
    static let overviewSize = 10

    /// The page's frame: header with the spool and the user, navigation, and `content`.
    func frame(_ title: String, _ content: String) -> String {
        var header = "<header><h1>spool</h1><span class=\"muted\">\(HTML.escape(spool.path))</span><nav>"
        header += "<a href=\"\(href([:]))\">Overview</a>"
        header += "<a href=\"\(href(["view": "conflict"]))\">Conflicts</a>"
        header += "<a href=\"\(href(["view": "failed"]))\">Failed</a></nav>"
        header += "<span class=\"muted\">" + (request.remoteUser.map { "signed in as " + HTML.escape($0) }
            ?? "no REMOTE_USER") + "</span></header>"
        var notices = ""
        if request.remoteUser == nil {
            notices += "<p class=\"notice\">The web server did no authentication (no REMOTE_USER): anyone who "
                + "reaches this page can act on the queue. Put it behind the server's authentication.</p>"
        }
        if onlyLooks {
            notices += "<p class=\"notice\">You may look: SPOOL_CGI_ACTORS does not name you among those who may "
                + "act on the queue.</p>"
        } else if token == nil {
            notices += "<p class=\"notice\">Actions are off: set SPOOL_CGI_SECRET to a file outside the spool "
                + "(it is made on first use) to turn them on.</p>"
        }
        return HTML.page(title: "spool: " + title, body: header + notices + content)
    }

    /// A link to the page itself with these query parameters, escaped for an attribute.
    func href(_ parameters: [String: String]) -> String {
        let query = parameters.sorted { $0.key < $1.key }
            .map { "\($0.key)=\(CGIRequest.percentEncoded($0.value))" }.joined(separator: "&")
        return HTML.escape(request.scriptName + (query.isEmpty ? "" : "?" + query))
    }

    /// A button that posts `action` (with `fields`) to the page, carrying the token; nothing without one.
    func button(_ label: String, action: String, _ fields: [String: String]) -> String {
        guard let token else { return "" }
        var form = "<form class=\"inline\" method=\"post\" action=\"\(HTML.escape(request.scriptName))\">"
        form += "<input type=\"hidden\" name=\"token\" value=\"\(HTML.escape(token(action)))\">"
        form += "<input type=\"hidden\" name=\"action\" value=\"\(HTML.escape(action))\">"
        for (name, value) in fields.sorted(by: { $0.key < $1.key }) {
            form += "<input type=\"hidden\" name=\"\(HTML.escape(name))\" value=\"\(HTML.escape(value))\">"
        }
        return form + "<button type=\"submit\">\(HTML.escape(label))</button></form>"
    }

    /// The overview: counts per state, origins with their state and controls, handler jobs, and the first
    /// conflicts and failures.
    func overview() throws -> String {
        let stats = try SpoolStats(spool: spool, nowSeconds: nowSeconds)
        let shape = try SpoolShape(spool: spool, folders: [.new, .cur], nowSeconds: nowSeconds)
        var out = "<h2>Queue</h2><table><tr><th>state</th><th>operations</th></tr>"
        let rows: [(String, Int)] = [
            ("waiting (new/)", stats.counts[.new] ?? 0), ("of which deferred", stats.deferred),
            ("of which held", stats.held), ("being sent (cur/)", stats.counts[.cur] ?? 0),
            ("failed", stats.counts[.failed] ?? 0), ("conflict", stats.counts[.conflict] ?? 0),
        ]
        for (name, count) in rows { out += "<tr><td>\(name)</td><td class=\"n\">\(count)</td></tr>" }
        out += "</table><p>Oldest waiting: "
            + (stats.oldestPendingAgeSeconds.map { humanDuration($0) } ?? "none")
            + (stats.nextDue.map { "; next retry at " + Timestamp.formatRFC3339($0) } ?? "") + ".</p>"
        out += origins(stats, shape)
        out += handlers(shape)
        for folder in [Spool.Folder.conflict, .failed] {
            let page = try FolderPage(spool: spool, folder: folder, offset: 0, limit: TriagePage.overviewSize)
            out += "<h2>\(folder == .conflict ? "Conflicts" : "Failed") (\(page.total))</h2>"
            out += list(page, folder: folder)
            if page.total > page.items.count {
                out += "<p><a href=\"\(href(["view": folder.rawValue]))\">All \(page.total)…</a></p>"
            }
        }
        return frame("overview", out)
    }

    /// The origins table: waiting per origin, and what the last sender learned of each.
    func origins(_ stats: SpoolStats, _ shape: SpoolShape) -> String {
        var names = Set(shape.rows.keys.filter { !$0.hasPrefix("handler:") && !$0.hasPrefix("(") })
        names.formUnion(stats.origins.map(\.origin))
        guard !names.isEmpty else { return "<h2>Origins</h2><p>None.</p>" }
        var out = "<h2>Origins</h2><table><tr><th>origin</th><th>waiting</th><th>window</th><th>429s</th>"
        out += "<th>pushbacks</th><th>pauses</th><th>state</th><th>delivered / failed / conflicts</th><th></th></tr>"
        for origin in names.sorted() {
            let record = stats.origins.first { $0.origin == origin }
            let waiting = shape.rows[origin]?.reduce(0, +) ?? 0
            var state = "open"
            if let record, record.pausedUntil > nowSeconds {
                state = "paused until " + Timestamp.formatRFC3339(record.pausedUntil)
            }
            out += "<tr><td>\(HTML.escape(origin))</td><td class=\"n\">\(waiting)</td>"
            out += "<td class=\"n\">" + (record.map { "\($0.window) of \($0.maximum)" } ?? "-") + "</td>"
            for value in [record?.tooManyRequests, record?.pushbacks, record?.pauses] {
                out += "<td class=\"n\">" + (value.map(String.init) ?? "-") + "</td>"
            }
            out += "<td>\(HTML.escape(state))</td><td>"
            out += record.map {
                "\($0.deliveries[.delivered]) / \($0.deliveries[.failed]) / \($0.deliveries[.conflicted])"
            }
                ?? "-"
            out += "</td><td>" + button("Hold", action: "hold", ["origin": origin])
                + button("Release", action: "release", ["origin": origin])
                + button("Flush", action: "flush", ["origin": origin]) + "</td></tr>"
        }
        return out + "</table>"
    }

    /// Handler jobs waiting, per handler.
    func handlers(_ shape: SpoolShape) -> String {
        let rows = shape.rows.filter { $0.key.hasPrefix("handler:") }.sorted { $0.key < $1.key }
        guard !rows.isEmpty else { return "" }
        var out = "<h2>Handler jobs waiting</h2><table><tr><th>handler</th><th>jobs</th></tr>"
        for (name, counts) in rows {
            out += "<tr><td>\(HTML.escape(String(name.dropFirst("handler:".count))))</td>"
            out += "<td class=\"n\">\(counts.reduce(0, +))</td></tr>"
        }
        return out + "</table>"
    }

    /// A table of filed operations with their reasons.
    func list(_ page: FolderPage, folder: Spool.Folder) -> String {
        guard !page.items.isEmpty else { return "<p>None.</p>" }
        var out = "<table><tr><th>id</th><th>request</th><th>age</th><th>reason</th><th></th></tr>"
        for item in page.items {
            out += "<tr><td><a href=\"\(href(["id": item.id]))\"><code>\(HTML.escape(item.id))</code></a></td>"
            out += "<td>\(HTML.escape(item.operation?.summary ?? "(unreadable)"))</td>"
            out += "<td>\(humanDuration(item.age(nowSeconds: nowSeconds)))</td>"
            out += "<td>\(HTML.escape(item.reasonLine ?? "-"))</td><td>"
            out += button("Retry", action: "retry", ["id": item.id])
                + button("Discard", action: "discard", ["id": item.id]) + "</td></tr>"
        }
        return out + "</table>"
    }

    /// One folder's list, a page at a time.
    func folder(_ folder: Spool.Folder, pageNumber asked: Int) throws -> String {
        var page = try FolderPage(
            spool: spool, folder: folder, offset: asked * TriagePage.pageSize, limit: TriagePage.pageSize)
        let last = max(0, (page.total - 1) / TriagePage.pageSize)
        // Past the end: the last page, as a pager's link would have it.
        let pageNumber = min(asked, last)
        if pageNumber != asked {
            page = try FolderPage(
                spool: spool, folder: folder, offset: pageNumber * TriagePage.pageSize, limit: TriagePage.pageSize)
        }
        let title = folder == .conflict ? "Conflicts" : "Failed"
        var out = "<h2>\(title) (\(page.total))</h2>" + list(page, folder: folder)
        out += "<p>Page \(pageNumber + 1) of \(last + 1). "
        if pageNumber > 0 {
            out += "<a href=\"\(href(["view": folder.rawValue, "page": String(pageNumber - 1)]))\">Previous page</a> "
        }
        if pageNumber < last {
            out += "<a href=\"\(href(["view": folder.rawValue, "page": String(pageNumber + 1)]))\">Next page</a>"
        }
        return frame(title, out + "</p>")
    }
}
