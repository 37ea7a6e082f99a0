import Glibc
import SpoolDocument
import SpoolQueue
import SpoolSystem

/// The request that `METHOD URL` or curl's options describe, made into an operation document as curl would
/// make the request: the method it implies, the headers it adds, the body it builds.
extension EnqueueCommand {
    /// Headers a document must not carry: the secret belongs in an auth profile, applied at send time.
    static let secretHeaders: Set<String> = ["authorization", "proxy-authorization"]

    /// Bodies up to this size go in the document; larger ones become its payload, streamed when sent.
    static let inlineBodyLimit = 64 * 1024

    /// The checks of a request's command line: `[METHOD] URL` and one body.
    package func validateRequest() throws(UsageError) {
        if positionals.isEmpty, !curl.json.isEmpty {
            throw .missingArgumentFor(
                "URL", needs: "--json is curl's, a JSON body sent to a URL; a whole operation document is "
                    + "--document FILE")
        }
        if let removal = curl.headers.first(where: { $0.1 == nil && $0.0.lowercased() == "idempotency-key" }) {
            throw .unsupported("-H '\(removal.0):'", why: "every write carries an Idempotency-Key, so that a retry is "
                + "never applied twice; give your own with --idempotency-key KEY")
        }
        // A lone word that is no URL is a METHOD still waiting for its URL.
        if positionals.isEmpty || positionals.count == 1 && !positionals[0].contains("://") {
            throw .missingArgument("URL")
        }
        if positionals.count > 2 { throw .unexpectedArgument(positionals[2]) }
        if positionals.count == 2, let method = curl.method, method != positionals[0] {
            throw .conflicting(positionals[0], "-X \(method)")
        }
        let bodies = [
            body != nil ? "--body" : nil, bodyFile != nil ? "--body-file" : nil, payload != nil ? "--payload" : nil,
            curl.data.isEmpty ? nil : "-d", curl.json.isEmpty ? nil : "--json", curl.uploadFile != nil ? "-T" : nil,
            curl.forms.isEmpty ? nil : "-F",
        ].compactMap { $0 }
        if bodies.count > 1 { throw .conflicting(bodies[0], bodies[1]) }
        if let secret = curl.headers.first(where: { EnqueueCommand.secretHeaders.contains($0.name.lowercased()) }) {
            throw .unsupported(
                "-H '\(secret.name): …'",
                why: "a secret must not enter the spool: name an auth profile with --auth NAME")
        }
    }

    /// The request's method: `METHOD`, else curl's (`-X`, PUT for `-T`, POST for a body, else GET).
    var requestMethod: String { positionals.count == 2 ? positionals[0] : curl.impliedMethod }

    /// The request's URL; with `-T` and a URL ending in `/`, the file's name is appended, as curl does.
    var requestURL: String {
        let url = positionals.last ?? ""
        let query = url.firstIndex(where: { $0 == "?" || $0 == "#" }) ?? url.endIndex
        guard let file = curl.uploadFile, file != "-", url[..<query].hasSuffix("/") else { return url }
        let name = file.split(separator: "/").last.map(String.init) ?? file
        return String(url[..<query]) + CurlWrite.urlencoded(Array(name.utf8), spaceAsPlus: false)
            + String(url[query...])
    }

    /// The headers as curl sends them: its defaults for the body, then `-A`, `-e`, `-b`, then `-H`, which replace
    /// or remove the others of the same name.
    func requestHeaders() -> [(key: String, value: JSON)] {
        // A removal ('Name:') is kept as null: spool-send then sends the write without the header it would add.
        var headers: [(String, String?)] = []
        if !curl.forms.isEmpty {
            headers.append(("Content-Type", "multipart/form-data; boundary=\(formBoundary)"))
        } else if !curl.json.isEmpty {
            headers += [("Content-Type", "application/json"), ("Accept", "application/json")]
        } else if !curl.data.isEmpty {
            headers.append(("Content-Type", "application/x-www-form-urlencoded"))
        }
        if let agent = curl.userAgent { headers.append(("User-Agent", agent)) }
        if let referer = curl.referer { headers.append(("Referer", referer)) }
        // Joined as curl 7.88 joins them, without a space.
        if !curl.cookies.isEmpty { headers.append(("Cookie", curl.cookies.joined(separator: ";"))) }
        for (name, value) in curl.headers {
            headers.removeAll { $0.0.lowercased() == name.lowercased() }
            headers.append((name, value))
        }
        return headers.map { (key: $0.0, value: $0.1.map(JSON.string) ?? .null) }
    }

    /// The body curl's data options build: `-d` pieces joined with `&`, `--json` pieces as they are.
    func curlBody() throws(EnqueueInputError) -> [UInt8]? {
        if !curl.forms.isEmpty { return try formBody() }
        if !curl.json.isEmpty {
            var bytes: [UInt8] = []
            for piece in curl.json { bytes += try pieceBytes(piece) }
            return bytes
        }
        guard !curl.data.isEmpty else { return nil }
        var parts: [[UInt8]] = []
        for piece in curl.data { parts.append(try pieceBytes(piece)) }
        return Array(parts.joined(separator: [UInt8(ascii: "&")]))
    }

    /// One piece's bytes, files read as curl reads them.
    func pieceBytes(_ piece: CurlWrite.Piece) throws(EnqueueInputError) -> [UInt8] {
        switch piece {
        case let .raw(text): return Array(text.utf8)
        case let .binary(text):
            return text.hasPrefix("@") ? try readBody(String(text.dropFirst())) : Array(text.utf8)
        case let .data(text):
            guard text.hasPrefix("@") else { return Array(text.utf8) }
            // curl -d @file drops carriage returns and newlines; --data-binary keeps them.
            return try readBody(String(text.dropFirst())).filter { $0 != 0x0D && $0 != 0x0A }
        case let .urlencode(text):
            // curl's five forms: content, =content, name=content, @file, name@file.
            guard let special = text.firstIndex(where: { $0 == "=" || $0 == "@" }) else {
                return Array(CurlWrite.urlencoded(Array(text.utf8)).utf8)
            }
            let name = String(text[..<special])
            let rest = String(text[text.index(after: special)...])
            let content = text[special] == "@" ? try readBody(rest) : Array(rest.utf8)
            let encoded = CurlWrite.urlencoded(content)
            return Array((name.isEmpty ? encoded : name + "=" + encoded).utf8)
        }
    }

    /// A body file (`-` for standard input), at most `--max-payload` bytes.
    func readBody(_ path: String) throws(EnqueueInputError) -> [UInt8] {
        try read(path, limit: Int(min(maxPayload, Int64(Int.max - 1))))
    }
}

/// `-F`: a multipart/form-data body built at enqueue time, part by part as curl 7.88 writes it.
extension EnqueueCommand {
    /// The boundary between parts, as long as curl's: 24 dashes and 16 hex digits, random per command.
    var formBoundary: String { "------------------------" + boundarySuffix }

    /// The body of the `-F` parts.
    func formBody() throws(EnqueueInputError) -> [UInt8] {
        var body: [UInt8] = []
        func line(_ text: String) { body += Array((text + "\r\n").utf8) }
        for part in curl.forms {
            let equals = part.firstIndex(of: "=")!
            let name = String(part[..<equals])
            let value = String(part[part.index(after: equals)...])
            line("--" + formBoundary)
            if value.hasPrefix("@") {
                // name=@file[;type=TYPE][;filename=NAME]
                var fields = value.dropFirst().split(separator: ";", omittingEmptySubsequences: false).map(String.init)
                let path = fields.removeFirst()
                var type: String?
                var filename = path.split(separator: "/").last.map(String.init) ?? path
                for field in fields {
                    if field.hasPrefix("type=") { type = String(field.dropFirst(5)) }
                    if field.hasPrefix("filename=") { filename = String(field.dropFirst(9)) }
                }
                line("Content-Disposition: form-data; name=\"\(name)\"; filename=\"\(filename)\"")
                line("Content-Type: \(type ?? EnqueueCommand.mediaType(ofFile: path))")
                line("")
                body += try readBody(path)
            } else {
                line("Content-Disposition: form-data; name=\"\(name)\"")
                line("")
                body += value.hasPrefix("<") ? try readBody(String(value.dropFirst())) : Array(value.utf8)
            }
            body += Array("\r\n".utf8)
        }
        line("--" + formBoundary + "--")
        return body
    }

    /// The media type curl gives a file part by its extension, else `application/octet-stream`.
    static func mediaType(ofFile path: String) -> String {
        let types = [
            "gif": "image/gif", "jpg": "image/jpeg", "jpeg": "image/jpeg", "png": "image/png", "svg": "image/svg+xml",
            "txt": "text/plain", "htm": "text/html", "html": "text/html", "pdf": "application/pdf",
            "xml": "application/xml",
        ]
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return "application/octet-stream" }
        return types[path[path.index(after: dot)...].lowercased()] ?? "application/octet-stream"
    }

    /// curl's short options bundled in one token, taken as curl takes them: each letter a flag, until one that
    /// takes a value, which takes the rest of the token, or the next argument when nothing is left.
    mutating func takeBundle(_ token: String, _ arguments: inout Arguments) throws(UsageError) {
        for (index, letter) in token.dropFirst().enumerated() {
            let flag = "-\(letter)"
            if CurlWrite.kept.contains(flag) {
                if flag == "-s" { silent = true }
                continue
            }
            if let canonical = CurlWrite.valued[flag] {
                let rest = String(token.dropFirst(2 + index))
                firstCurlOption = firstCurlOption ?? flag
                try curl.take(canonical, rest.isEmpty ? try arguments.value(for: flag) : rest)
                return
            }
            if let why = CurlWrite.refused[flag] { throw .unsupported(flag, why: why) }
            throw .unknownOption(flag)
        }
    }
}
