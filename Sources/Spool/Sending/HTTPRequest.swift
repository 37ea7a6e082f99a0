/// The request a transport sends for one attempt of an operation, with every header already decided.
public struct HTTPRequest: Sendable {
    /// Method token.
    public var method: String
    /// Target URL.
    public var url: String
    /// Headers in the order they are sent.
    public var headers: [(name: String, value: String)]
    /// Body bytes, if any.
    public var body: [UInt8]?
    /// The origin (`scheme://host:port`) the request goes to.
    public var origin: String

    /// The request for one attempt of `operation`: its method, URL, headers and body, plus `Idempotency-Key`
    /// (the document's, or one derived from the id so that it is the same on every attempt), `If-Match`,
    /// a `Content-Type` for JSON bodies, our `User-Agent` unless the document sets one, and the credential
    /// headers last so that a document cannot shadow them.
    public init(operation: Operation, id: String, userAgent: String, credentials: [(name: String, value: String)] = []) {
        method = operation.method
        url = operation.url
        origin = operation.origin
        body = operation.body
        var headers = operation.headers
        func has(_ name: String) -> Bool { headers.contains { $0.name.lowercased() == name } }
        let credentialNames = Set(credentials.map { $0.name.lowercased() })
        headers.removeAll { credentialNames.contains($0.name.lowercased()) }
        if !has("user-agent") { headers.append(("User-Agent", userAgent)) }
        if operation.bodyIsJSON, !has("content-type") { headers.append(("Content-Type", "application/json")) }
        headers.append(("Idempotency-Key", operation.idempotencyKey ?? IdempotencyKey.derived(fromID: id)))
        if let tag = operation.ifMatch { headers.append(("If-Match", tag)) }
        headers += credentials
        self.headers = headers
    }
}

/// What a server answered.
public struct HTTPResponse: Sendable {
    /// Status code.
    public var status: Int
    /// Headers with lower-cased names.
    public var headers: [String: String]
    /// The start of the body (transports keep at most a few KiB).
    public var body: [UInt8]

    /// A response from its parts.
    public init(status: Int, headers: [String: String], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// A request that got no HTTP answer.
public enum TransportFailure: Error, Equatable, Sendable {
    case refused
    case reset
    /// The connection closed without an answer: the write may have been applied (the lost response).
    case closedWithoutAnswer
    case dns
    case timeout
    case tls(String)
    case other(String)

    /// A short token for the file name's `e=` and for logs.
    public var token: String {
        switch self {
        case .refused: "refused"
        case .reset: "reset"
        case .closedWithoutAnswer: "no-answer"
        case .dns: "dns"
        case .timeout: "timeout"
        case .tls: "tls"
        case .other: "network"
        }
    }

    /// A sentence for reasons and logs.
    public var description: String {
        switch self {
        case .refused: "connection refused"
        case .reset: "connection reset"
        case .closedWithoutAnswer: "connection closed without an answer"
        case .dns: "host name not found"
        case .timeout: "timed out"
        case let .tls(message): "TLS error: \(message)"
        case let .other(message): "network error: \(message)"
        }
    }
}

/// Sends one request. Implemented over FoundationNetworking in SpoolHTTP, so that this library stays light.
public protocol Transport: Sendable {
    /// Sends `request` and returns the server's answer or why there was none. Never follows redirects.
    func send(_ request: HTTPRequest) async -> Result<HTTPResponse, TransportFailure>
}
