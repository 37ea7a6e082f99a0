import SpoolConfiguration
import SpoolDocument
import SpoolHandlers
import SpoolNames
import SpoolQueue
import SpoolSystem
import SpoolTransport

/// The resource as the server has it when a write lands in `conflict/`: one GET, made only for the human
/// who will decide, and kept in the conflict's reason (`theirs-*` fields, the body after them). The one read
/// spool makes; `--no-fetch-on-conflict` turns it off.
package enum ServerVersion {
    /// The most of the server's body kept; a longer one is cut there, and the reason says so.
    package static let maxBodyBytes = 256 * 1024

    /// The GET for `operation`'s URL, with its auth profile's credentials and TLS files, `Accept` from its
    /// `Content-Type`, the write's trace, and nothing of the write itself (no body, no `If-Match`, no
    /// `Idempotency-Key`).
    package static func request(for operation: Operation, userAgent: String, profile: Credentials.Profile)
        -> HTTPRequest
    {
        let contentType = operation.headers.first { $0.name.lowercased() == "content-type" }?.value
            ?? (operation.bodyIsJSON ? "application/json" : nil)
        var headers: [(name: String, value: String)] = [("Accept", contentType ?? "*/*")]
        headers.append(("User-Agent", userAgent))
        // A span of the write's trace too: the server's log ties the read to the write it is for.
        if let trace = operation.trace { headers += trace.headers() }
        headers += profile.headers
        var request = HTTPRequest(
            method: "GET", url: operation.url, headers: headers, body: nil, origin: operation.origin, tls: profile.tls)
        request.keptBodyBytes = maxBodyBytes
        request.stopsAtKeptBytes = true
        return request
    }

    /// The reason's `theirs-*` fields and body for what the GET gave: the version's status, ETag,
    /// `Last-Modified`, content type and length, or why there is none (never fatal to the filing).
    package static func record(_ result: Result<HTTPResponse, TransportError>, atSeconds: Int64)
        -> (fields: [(String, String)], body: [UInt8]?)
    {
        var fields = [("theirs-fetched", Timestamp.formatRFC3339(atSeconds))]
        switch result {
        case let .failure(failure):
            fields.append(("theirs-error", "the server's version could not be fetched: \(failure.description)"))
            return (fields, nil)
        case let .success(response):
            fields.append(("theirs-status", "\(response.status)"))
            for (header, field) in [
                ("etag", "theirs-etag"), ("last-modified", "theirs-last-modified"),
                ("content-type", "theirs-content-type")
            ] {
                if let value = response.headers[header] { fields.append((field, value)) }
            }
            fields.append(("theirs-length", "\(response.body.count)"))
            if response.bodyCut {
                fields.append(("theirs-cut", "the version is longer; its first \(response.body.count) bytes are kept"))
            }
            return (fields, response.body)
        }
    }
}
