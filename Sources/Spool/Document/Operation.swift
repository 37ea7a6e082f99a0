import SpoolNames
import SpoolSystem
import SpoolTransport

/// One queued HTTP write, or a job for an admin's handler, read from its JSON document and checked field by field.
///
/// The document itself is never rewritten by the worker: retry state lives in the file name,
/// so fields a producer added for its own use survive untouched.
package struct Operation: Sendable {
    /// The HTTP method, as given; `RUN` for a handler job.
    package let method: String
    /// The target URL; `handler:NAME` for a handler job.
    package let url: String
    /// The URL's scheme, host and port, lower-cased: `http://example.com:8080`; `handler:NAME` for a handler
    /// job, so that a handler that cannot run stops its jobs as an unreachable origin stops its requests.
    package let origin: String
    /// The handler a job names instead of a method and URL: a plain name in the handler directory.
    package let handler: String?
    /// The handler's arguments.
    package let arguments: [String]
    /// Extra request headers in document order.
    package let headers: [(name: String, value: String)]
    /// Headers spool would add that the write is sent without (`"Name": null`, curl's `-H 'Name:'`).
    package let removedHeaders: [String]
    /// The request body, decoded from `body` or `body_base64`; nil when neither is given.
    package let body: [UInt8]?
    /// Whether `body` was a JSON value other than a string (sent as JSON text).
    package let bodyIsJSON: Bool
    /// Whether the body is the file's payload (`"payload": true`): every byte after the document's line,
    /// streamed from the spool when sent, never held in memory.
    package let hasPayload: Bool
    /// Where the payload lies in the operation's file, set by the reader that found it there.
    package var payload: PayloadSpan?
    /// The user id owning the operation's file, set by the reader that found it: who dropped it, which a
    /// producer cannot forge (a file's owner is whoever created it).
    package var producer: UInt32?
    /// The document's `idempotency_key`, if any.
    package let idempotencyKey: String?
    /// The document's `if_match`, if any.
    package let ifMatch: String?
    /// The ordering key: `key`, or the URL.
    package let key: String
    /// Ids of operations that must be done first.
    package let dependsOn: [String]
    /// Whether a newer operation with the same key may replace this one before it is first tried.
    package let coalesce: Bool
    /// Whether this write's JSON body is merged (RFC 7396) into the newest never-attempted write waiting on its
    /// key, instead of being queued, when there is one.
    package let merge: Bool
    /// Whether this write creates its key's resource: a later DELETE of the key finding it never attempted
    /// cancels it and what waits behind it.
    package let creates: Bool
    /// Earliest first attempt, epoch seconds.
    package let notBefore: Int64?
    /// After this instant the operation fails instead of being sent, epoch seconds.
    package let expiresAt: Int64?
    /// Attempts after which the operation fails.
    package let maxAttempts: Int?
    /// Among due lanes, higher goes first (-10 to 10, default 0); never reorders one key's operations.
    package let priority: Int
    /// Credential profile to apply at send time.
    package let auth: String?
    /// The trace the write belongs to (`traceparent`, `tracestate`), if the producer had one.
    package let trace: TraceContext?
    /// The whole document, unknown fields included.
    package let document: JSON

    /// What the operation does, for people: `METHOD URL`, or the handler and its arguments.
    package var summary: String {
        guard let handler else { return "\(method) \(url)" }
        return (["handler", handler] + arguments.map(Operation.shellQuoted)).joined(separator: " ")
    }

    /// A word as a POSIX shell would need it quoted to read it back: shown, never run.
    package static func shellQuoted(_ word: String) -> String {
        let plain =
            !word.isEmpty && word.utf8.allSatisfy { HTTPSyntax.isAlphanumeric($0) || "-_./=:@%+,".utf8.contains($0) }
        return plain
            ? word : "'" + word.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }

    /// Headers that the transport owns or that would let a document break the request framing.
    package static let forbiddenHeaders: [String: String] = [
        "host": "the host comes from \"url\"",
        "content-length": "the length comes from the body",
        "transfer-encoding": "the transport frames the body",
        "connection": "hop-by-hop headers belong to the transport",
        "keep-alive": "hop-by-hop headers belong to the transport",
        "upgrade": "hop-by-hop headers belong to the transport",
        "te": "hop-by-hop headers belong to the transport",
        "trailer": "hop-by-hop headers belong to the transport",
        "proxy-connection": "hop-by-hop headers belong to the transport",
        "idempotency-key": "use the \"idempotency_key\" field",
        "if-match": "use the \"if_match\" field",
        "traceparent": "use the \"traceparent\" field: each attempt is sent with a span id of its own",
        "tracestate": "use the \"tracestate\" field, beside \"traceparent\"",
        "authorization": "a secret must not be written into the spool: name an auth profile with \"auth\"",
        "proxy-authorization": "a secret must not be written into the spool: name an auth profile with \"auth\"",
    ]

    /// RFC 9110's methods and PATCH (RFC 5789): a lower-case spelling of one of them is refused.
    package static let standardMethods: Set<String> = [
        "GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"
    ]
    /// Methods that only read: queued only with `allow_get`, as nobody is there to read the answer.
    package static let readMethods: Set<String> = ["GET", "HEAD", "OPTIONS"]
    /// Methods that make no sense later and elsewhere: a tunnel and a loop-back of the request.
    package static let neverQueuedMethods: Set<String> = ["CONNECT", "TRACE"]

    /// The accepted range of `max_attempts`.
    package static let maxAttemptsRange = 1...1000
    /// The accepted range of `priority`.
    package static let priorityRange = -10...10

    /// Reads and checks an operation document.
    package init(bytes: [UInt8]) throws(OperationError) {
        let json: JSON
        do { json = try JSON.parse(bytes) } catch { throw .notJSON(error) }
        try self.init(document: json)
    }

    /// Checks an already parsed operation document.
    package init(document: JSON) throws(OperationError) {
        guard case .object = document else { throw .notAnObject(found: document.typeName) }
        self.document = document
        let fields = OperationFields(document: document)
        // A field naming a file would be a reference the worker must follow; spool never follows one.
        if fields["body_file"] != nil {
            throw .invalidName(
                field: "body_file", value: "…",
                why:
                    "is not supported: spool never reads files named in a document; put the body in \"body\" or "
                        + "\"body_base64\""
            )
        }
        handler = try fields.handler()
        if let handler {
            try fields.refuseHTTPFields(handler: handler)
            method = "RUN"
            url = "handler:\(handler)"
            origin = url
            arguments = try fields.arguments()
        } else {
            // `args` beside a URL stays what it was before handlers: the producer's own field.
            method = try fields.method()
            guard let url = try fields.string("url") else { throw .missingField("url") }
            self.url = url
            origin = try Operation.origin(of: url)
            arguments = []
        }
        headers = try fields.headers()
        removedHeaders = try fields.removedHeaders()
        hasPayload = try fields.payload(handler: handler)
        (body, bodyIsJSON) = try fields.body()
        idempotencyKey = try fields.idempotencyKey()
        ifMatch = try fields.ifMatch()
        key = try fields.key() ?? url
        dependsOn = try fields.dependsOn()
        coalesce = try fields.coalesce()
        merge = try fields.merge(handler: handler, hasPayload: hasPayload, body: body)
        creates = try fields.flag("creates")
        notBefore = try fields.date("not_before")
        expiresAt = try fields.date("expires_at")
        maxAttempts = try fields.maxAttempts()
        priority = try fields.priority()
        auth = try fields.auth()
        trace = try fields.trace()
    }

    /// The origin (`scheme://host[:port]`, lower-cased, default port omitted) of an `http` or `https` URL,
    /// or an error saying what is wrong with it.
    package static func origin(of url: String) throws(OperationError) -> String {
        // Bytes read in place, not Characters and no copy: this runs for every operation read.
        var text = url, why = ""
        guard let origin = text.withUTF8({ origin(parsing: $0, why: &why) }) else { throw .invalidURL(url, why: why) }
        return origin
    }

    /// `origin(of:)` over the URL's bytes; nil, and `why` set, when the URL is refused. Plain values in and
    /// out, no `Result` of a tuple: the runtime looked up that generic type's metadata on every call.
    private static func origin(parsing bytes: UnsafeBufferPointer<UInt8>, why: inout String) -> String? {
        func invalid(_ reason: String) -> String? {
            why = reason
            return nil
        }
        guard !bytes.contains(where: { $0 <= 0x20 || $0 >= 0x7F }) else {
            return invalid("contains spaces, control or non-ASCII characters (percent-encode them)")
        }
        // The first "://", found by a plain scan: a search that compared a slice at every index cost more
        // than the rest of the document's checks together.
        var schemeEnd: Int?
        for index in bytes.indices.dropLast(2)
        where bytes[index] == UInt8(ascii: ":") && bytes[index + 1] == UInt8(ascii: "/")
            && bytes[index + 2] == UInt8(ascii: "/")
        {
            schemeEnd = index
            break
        }
        guard let schemeEnd else { return invalid("has no scheme; only http:// and https:// URLs are sent") }
        let scheme = bytes[0..<schemeEnd]
        let secure = HTTPSyntax.equalsIgnoringCase(scheme, "https")
        guard secure || HTTPSyntax.equalsIgnoringCase(scheme, "http") else {
            return invalid("has scheme \"\(HTTPSyntax.lowercasedText(scheme))\"; only http and https are sent")
        }
        let authorityStart = schemeEnd + 3
        let authorityEnd =
            bytes[authorityStart...].firstIndex {
                $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#")
            } ?? bytes.count
        let authority = authorityStart..<authorityEnd
        var host = authority, port: Range<Int>?
        guard splitAuthority(bytes, authority, host: &host, port: &port, why: &why) else { return nil }
        guard !host.isEmpty else { return invalid("has no host") }
        // The port's digits without leading zeros, kept only when they are not the scheme's default: read as
        // bytes, as curl reads them (no sign, no blank), with no string made on the way.
        var digits: Range<Int>?
        if let port {
            var number = 0, first = port.lowerBound
            for index in port {
                let byte = bytes[index]
                guard byte >= 0x30, byte <= 0x39, number <= 65535 else { return invalid("has an invalid port") }
                number = number * 10 + Int(byte - 0x30)
                if number == 0 { first = index + 1 }
            }
            guard (1...65535).contains(number) else { return invalid("has an invalid port") }
            if number != (secure ? 443 : 80) { digits = first..<port.upperBound }
        }
        let prefix = secure ? "https://" : "http://"
        let length = prefix.utf8.count + host.count + (digits.map { $0.count + 1 } ?? 0)
        return String(unsafeUninitializedCapacity: length) { out in
            // One string written in place: the origin is made for every operation read.
            let lowercasedHost = bytes[host].lazy.map(HTTPSyntax.lowercased)
            var next = out.initialize(from: prefix.utf8).1
            next = out[next...].initialize(from: lowercasedHost).1
            guard let digits else { return next }
            out[next] = UInt8(ascii: ":")
            return out[(next + 1)...].initialize(from: bytes[digits]).1
        }
    }

    /// Splits `authority` of `bytes` into `host` (`[v6]` or a name; the whole authority when there is no port)
    /// and `port` (nil: none given; a trailing `:` gives an empty one, which the caller refuses). False, with
    /// `why` set, when it is refused.
    private static func splitAuthority(
        _ bytes: UnsafeBufferPointer<UInt8>, _ authority: Range<Int>, host: inout Range<Int>,
        port: inout Range<Int>?, why: inout String
    ) -> Bool {
        guard !bytes[authority].contains(UInt8(ascii: "@")) else {
            why = "carries credentials; name a profile with \"auth\" instead, so no secret enters the spool"
            return false
        }
        if bytes[authority].first == UInt8(ascii: "[") {
            guard let close = bytes[authority].firstIndex(of: UInt8(ascii: "]")) else {
                why = "has an unterminated IPv6 address"
                return false
            }
            host = authority.lowerBound..<close + 1
            guard close + 1 < authority.upperBound else { return true }
            guard bytes[close + 1] == UInt8(ascii: ":") else {
                why = "has text after its IPv6 address"
                return false
            }
            port = close + 2..<authority.upperBound
        } else if let colon = bytes[authority].lastIndex(of: UInt8(ascii: ":")) {
            host = authority.lowerBound..<colon
            port = colon + 1..<authority.upperBound
        }
        return true
    }
}

/// Where an operation's payload lies in its file: after the document's line, to the end.
package struct PayloadSpan: Sendable, Equatable {
    /// The byte where the payload starts: just after the first newline.
    package var offset: Int64
    /// Its length in bytes.
    package var length: Int64

    /// A span of `length` bytes from `offset`.
    package init(offset: Int64, length: Int64) { (self.offset, self.length) = (offset, length) }
}
