
/// What the page answers, as a CGI program writes it: a `Status:` line and headers for the web server,
/// a blank line, the body.
package struct CGIResponse: Sendable, Equatable {
    /// The HTTP status.
    package var status: Int
    /// Its reason phrase.
    package var reason: String
    /// Headers besides the ones every answer carries.
    package var headers: [String] = []
    /// The HTML.
    package var body: String

    /// An answer with this status and page.
    package init(_ status: Int, _ reason: String, headers: [String] = [], body: String) {
        (self.status, self.reason, self.headers, self.body) = (status, reason, headers, body)
    }

    /// Headers on every answer: the page runs no script, loads nothing from elsewhere, posts only to
    /// itself, cannot be framed, and is never cached (it shows the queue as it is).
    static let standardHeaders = [
        "Content-Type: text/html; charset=utf-8",
        "Content-Security-Policy: default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; "
            + "form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
        "X-Content-Type-Options: nosniff", "X-Frame-Options: DENY", "Referrer-Policy: same-origin",
        "Cache-Control: no-store",
    ]

    /// The bytes written to standard output.
    package var text: String {
        var out = "Status: \(status) \(reason)\r\n"
        for header in CGIResponse.standardHeaders + headers { out += header + "\r\n" }
        return out + "\r\n" + body
    }
}

/// HTML escaping and the page's frame. Everything a producer, a server or a file name wrote goes through
/// `escape` before it reaches the page.
package enum HTML {
    /// `text` with `& < > " '` as character references: safe in element content and in quoted attributes.
    package static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }

    /// A whole page: `title` (escaped here) and `body`, already HTML.
    package static func page(title: String, body: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(escape(title))</title>
        <style>\(style)</style>
        </head><body>
        \(body)
        </body></html>

        """
    }

    static let style = """
        body{font:14px/1.4 system-ui,sans-serif;margin:0 1.5em 2em;color:#1d1d1f;background:#fafafa}
        header{display:flex;gap:1.5em;align-items:baseline;border-bottom:1px solid #ccc;padding:.6em 0;margin-bottom:1em}
        header h1{font-size:1.2em;margin:0}header nav a{margin-right:1em}
        table{border-collapse:collapse;margin:.5em 0 1.5em;background:#fff}
        th,td{border:1px solid #ddd;padding:.25em .6em;text-align:left;vertical-align:top}
        th{background:#f0f0f0}td.n{text-align:right;font-variant-numeric:tabular-nums}
        pre{background:#fff;border:1px solid #ddd;padding:.6em;overflow:auto;max-height:32em;margin:0;white-space:pre-wrap;word-break:break-all}
        .versions{display:grid;grid-template-columns:1fr 1fr;gap:1em}
        .del{background:#ffe5e5}.add{background:#e3f7e3}.hunk{color:#6a4fb3}
        form.inline{display:inline;margin-right:.4em}button{font:inherit;padding:.2em .8em;cursor:pointer}
        .notice{background:#fff7d6;border:1px solid #e6d38a;padding:.5em .8em;margin:.5em 0}
        .muted{color:#666}code{font-size:.95em}
        """
}
