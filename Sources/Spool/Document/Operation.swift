/// One queued HTTP write, read from its JSON document and checked field by field.
///
/// The document itself is never rewritten by the worker: retry state lives in the file name,
/// so fields a producer added for its own use survive untouched.
public struct Operation: Sendable {
    /// The HTTP method, as given.
    public let method: String
    /// The target URL.
    public let url: String
    /// The URL's scheme, host and port, lower-cased: `http://example.com:8080`.
    public let origin: String
    /// Extra request headers in document order.
    public let headers: [(name: String, value: String)]
    /// The request body, decoded from `body` or `body_base64`; nil when neither is given.
    public let body: [UInt8]?
    /// Whether `body` was a JSON value other than a string (sent as JSON text).
    public let bodyIsJSON: Bool
    /// The document's `idempotency_key`, if any.
    public let idempotencyKey: String?
    /// The document's `if_match`, if any.
    public let ifMatch: String?
    /// The ordering key: `key`, or the URL.
    public let key: String
    /// Ids of operations that must be done first.
    public let dependsOn: [String]
    /// Whether a newer operation with the same key may replace this one before it is first tried.
    public let coalesce: Bool
    /// Earliest first attempt, epoch seconds.
    public let notBefore: Int64?
    /// After this instant the operation fails instead of being sent, epoch seconds.
    public let expiresAt: Int64?
    /// Attempts after which the operation fails.
    public let maxAttempts: Int?
    /// Credential profile to apply at send time.
    public let auth: String?
    /// The whole document, unknown fields included.
    public let document: JSON

    /// Headers that the transport owns or that would let a document break the request framing.
    static let forbiddenHeaders: [String: String] = [
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
    ]

    /// The accepted range of `max_attempts`.
    public static let maxAttemptsRange = 1...1000

    /// Reads and checks an operation document.
    public init(bytes: [UInt8]) throws(OperationError) {
        let json: JSON
        do { json = try JSON.parse(bytes) } catch { throw .notJSON(error) }
        try self.init(document: json)
    }

    /// Checks an already parsed operation document.
    public init(document: JSON) throws(OperationError) {
        guard case let .object(members) = document else { throw .notAnObject(found: document.typeName) }
        self.document = document
        func string(_ field: String) throws(OperationError) -> String? {
            guard let value = document[field] else { return nil }
            guard case let .string(s) = value else { throw .wrongType(field: field, expected: "a string", found: value.typeName) }
            return s
        }
        func date(_ field: String) throws(OperationError) -> Int64? {
            guard let text = try string(field) else { return nil }
            guard let seconds = Timestamp.parseRFC3339(text) else { throw .invalidDate(field: field, value: text) }
            return seconds
        }
        _ = members

        // A field naming a file would be a reference the worker must follow; spool never follows one.
        if document["body_file"] != nil {
            throw .invalidName(field: "body_file", value: "…", why: "is not supported: spool never reads files named in a document; put the body in \"body\" or \"body_base64\"")
        }

        guard let method = try string("method") else { throw .missingField("method") }
        guard !method.isEmpty, method.utf8.count <= 32, method.utf8.allSatisfy(HTTPSyntax.isTokenCharacter) else {
            throw .invalidMethod(method)
        }
        self.method = method

        guard let url = try string("url") else { throw .missingField("url") }
        self.url = url
        self.origin = try Operation.origin(of: url)

        var headers: [(name: String, value: String)] = []
        if let value = document["headers"] {
            guard case let .object(pairs) = value else { throw .wrongType(field: "headers", expected: "an object of strings", found: value.typeName) }
            for (name, headerValue) in pairs {
                guard case let .string(text) = headerValue else {
                    throw .wrongType(field: "headers.\(name)", expected: "a string", found: headerValue.typeName)
                }
                guard !name.isEmpty, name.utf8.allSatisfy(HTTPSyntax.isTokenCharacter) else { throw .invalidHeaderName(name) }
                if let why = Operation.forbiddenHeaders[name.lowercased()] { throw .forbiddenHeader(name, why: why) }
                guard !text.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) else { throw .invalidHeaderValue(name: name) }
                headers.append((name, text))
            }
        }
        self.headers = headers

        switch (document["body"], document["body_base64"]) {
        case (.some, .some): throw .conflictingFields("body", "body_base64")
        case let (.some(.string(text)), nil):
            body = Array(text.utf8)
            bodyIsJSON = false
        case let (.some(value), nil):
            body = Array(value.text.utf8)
            bodyIsJSON = value != .null
        case (nil, .some):
            guard let encoded = try string("body_base64"), let decoded = Base64.decode(encoded) else { throw .invalidBase64 }
            body = decoded
            bodyIsJSON = false
        case (nil, nil):
            body = nil
            bodyIsJSON = false
        }

        idempotencyKey = try string("idempotency_key")
        if let key = idempotencyKey {
            guard !key.isEmpty, key.utf8.count <= 255, key.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
                throw .invalidName(field: "idempotency_key", value: key, why: "must be 1 to 255 visible ASCII characters")
            }
        }
        ifMatch = try string("if_match")
        if let tag = ifMatch, tag.isEmpty || tag.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) {
            throw .invalidName(field: "if_match", value: tag, why: "must be a non-empty entity tag without control characters")
        }
        if let key = try string("key") {
            guard !key.isEmpty else { throw .invalidName(field: "key", value: key, why: "must not be empty") }
            self.key = key
        } else {
            self.key = url
        }

        var dependsOn: [String] = []
        if let value = document["depends_on"] {
            guard case let .array(items) = value else { throw .wrongType(field: "depends_on", expected: "an array of operation ids", found: value.typeName) }
            for item in items {
                guard case let .string(id) = item else { throw .wrongType(field: "depends_on", expected: "an array of operation ids", found: "an array holding a \(item.typeName)") }
                guard OperationID.isValid(id) else {
                    throw .invalidName(field: "depends_on", value: id, why: "is not an operation id (a file name without '/', ':' or control characters)")
                }
                dependsOn.append(id)
            }
        }
        self.dependsOn = dependsOn

        if let value = document["coalesce"] {
            guard case let .bool(flag) = value else { throw .wrongType(field: "coalesce", expected: "true or false", found: value.typeName) }
            coalesce = flag
        } else {
            coalesce = false
        }

        notBefore = try date("not_before")
        expiresAt = try date("expires_at")

        if let value = document["max_attempts"] {
            guard case let .number(text) = value else { throw .wrongType(field: "max_attempts", expected: "an integer", found: value.typeName) }
            guard let n = Int(text), Operation.maxAttemptsRange.contains(n) else {
                throw .outOfRange(field: "max_attempts", value: text, range: Operation.maxAttemptsRange)
            }
            maxAttempts = n
        } else {
            maxAttempts = nil
        }

        auth = try string("auth")
        if let name = auth {
            guard !name.isEmpty, name.utf8.count <= 64, name.first != ".",
                  name.utf8.allSatisfy({ HTTPSyntax.isAlphanumeric($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".") })
            else {
                throw .invalidName(field: "auth", value: name, why: "must be a profile name of letters, digits, '.', '-' and '_' not starting with '.'")
            }
        }
    }

    /// The origin (`scheme://host[:port]`, lower-cased, default port omitted) of an `http` or `https` URL,
    /// or an error saying what is wrong with it.
    public static func origin(of url: String) throws(OperationError) -> String {
        let bytes = Array(url.utf8)
        guard !bytes.contains(where: { $0 <= 0x20 || $0 >= 0x7F }) else {
            throw .invalidURL(url, why: "contains spaces, control or non-ASCII characters (percent-encode them)")
        }
        guard let schemeEnd = url.firstRange(of: "://") else {
            throw .invalidURL(url, why: "has no scheme; only http:// and https:// URLs are sent")
        }
        let scheme = url[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "http" || scheme == "https" else {
            throw .invalidURL(url, why: "has scheme \"\(scheme)\"; only http and https are sent")
        }
        let rest = url[schemeEnd.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.contains("@") else {
            throw .invalidURL(url, why: "carries credentials; name a profile with \"auth\" instead, so no secret enters the spool")
        }
        var host = Substring(authority)
        var port: Substring = ""
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw .invalidURL(url, why: "has an unterminated IPv6 address") }
            host = authority[...close]
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") { port = after.dropFirst() } else if !after.isEmpty { throw .invalidURL(url, why: "has text after its IPv6 address") }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            port = authority[authority.index(after: colon)...]
        }
        guard !host.isEmpty else { throw .invalidURL(url, why: "has no host") }
        var portSuffix = ""
        if !port.isEmpty || authority.hasSuffix(":") {
            guard let number = Int(port), (1...65535).contains(number) else { throw .invalidURL(url, why: "has an invalid port") }
            if !(scheme == "http" && number == 80) && !(scheme == "https" && number == 443) { portSuffix = ":\(number)" }
        }
        return "\(scheme)://\(host.lowercased())\(portSuffix)"
    }
}

/// Character classes from RFC 9110.
enum HTTPSyntax {
    static func isAlphanumeric(_ c: UInt8) -> Bool {
        (0x30...0x39).contains(c) || (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c)
    }

    /// `tchar`: the characters of a method or header-name token.
    static func isTokenCharacter(_ c: UInt8) -> Bool {
        isAlphanumeric(c) || "!#$%&'*+-.^_`|~".utf8.contains(c)
    }
}
