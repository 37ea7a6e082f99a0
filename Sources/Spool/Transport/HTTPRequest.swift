
/// The request a transport sends for one attempt of an operation, with every header already decided.
package struct HTTPRequest: Sendable {
    /// Method token.
    package var method: String
    /// Target URL.
    package var url: String
    /// Headers in the order they are sent.
    package var headers: [(name: String, value: String)]
    /// Body bytes, if any.
    package var body: [UInt8]?
    /// A body streamed from a file the caller holds open instead (an operation's payload), never held whole.
    package var bodyFile: BodyFile?
    /// The origin (`scheme://host:port`) the request goes to.
    package var origin: String
    /// TLS files from the operation's auth profile, if it names any.
    package var tls: TLSFiles
    /// How to reach the origin, from spool.conf(5) and the command line (CA file, proxy, HTTP version);
    /// nil settings leave the engine's own.
    package var route = Route()
    /// Called by the engine, on its own thread, once the connection is up and the request is about to go
    /// out (after TCP and any proxy and TLS handshakes), maybe more than once: an origin's probe waits
    /// for this, not for the answer, so a slow server delays the lanes behind it by a handshake at most.
    package var onConnected: (@Sendable () -> Void)?
    /// Called by the engine, on its own thread, with the bytes of `bodyFile` sent so far, as they go out
    /// (less again when it rewinds to send anew): `spool-send -v`'s progress meter on a terminal.
    package var onProgress: (@Sendable (Int64) -> Void)?
    /// How much of the answer's body to keep (a few KiB for a reason; more for the server's version of a
    /// conflicting resource).
    package var keptBodyBytes = 4096
    /// Whether the transfer stops at `keptBodyBytes` instead of reading the rest and dropping it: for a read,
    /// whose answer may be any size; a write's answer is read to its end so that its connection is reused.
    package var stopsAtKeptBytes = false

    /// A request from its parts, the route and connection callback left to set.
    package init(
        method: String, url: String, headers: [(name: String, value: String)], body: [UInt8]?, origin: String,
        tls: TLSFiles
    ) {
        (self.method, self.url, self.headers, self.body, self.origin, self.tls) = (
            method, url, headers, body, origin, tls
        )
    }
}

/// `length` bytes from `offset` of an open file, read as they are sent: the engine never opens a path.
package struct BodyFile: Sendable, Equatable {
    /// The open file, which the caller keeps open until the request ends.
    package var descriptor: Int32
    /// Where the body starts.
    package var offset: Int64
    /// How many bytes it has: `Content-Length`.
    package var length: Int64

    /// A body of `length` bytes from `offset` of `descriptor`.
    package init(descriptor: Int32, offset: Int64, length: Int64) {
        (self.descriptor, self.offset, self.length) = (descriptor, offset, length)
    }
}

/// What a server answered.
package struct HTTPResponse: Sendable {
    /// Status code.
    package var status: Int
    /// Headers with lower-cased names.
    package var headers: [String: String]
    /// The start of the body: at most the request's `keptBodyBytes`.
    package var body: [UInt8]
    /// Whether the body went on past what was kept.
    package var bodyCut = false

    /// A response from its parts.
    package init(status: Int, headers: [String: String], body: [UInt8], bodyCut: Bool = false) {
        self.status = status
        self.headers = headers
        self.body = body
        self.bodyCut = bodyCut
    }
}

/// A request that got no usable HTTP answer. Which engine error is which is one table, in SpoolHTTP's
/// `CurlResultTable.swift`, mirrored in spool-send(8).
package enum TransportError: Error, Equatable, Sendable {
    /// Nothing listens: the connection was refused.
    case refused
    /// The host (or the proxy) has no address.
    case dns
    /// No answer within `--timeout`.
    case timeout
    /// The connection broke after the request went out, even on a fresh connection: the write may have
    /// been applied, so it is retried with the same Idempotency-Key.
    case lost(String)
    /// TLS failed: a certificate that cannot be verified, a bad client certificate or key, no common cipher.
    case tls(String)
    /// The answer is larger than the engine keeps (its head); retrying would get the same.
    case tooLarge(String)
    /// A body streamed from a file ended before its length (or could not be read): the request was cut off,
    /// never sent short as if complete.
    case bodyUnreadable(String)
    /// Anything else the engine reports.
    case other(String)

    /// The tokens of failures that a change of the network may cure: a watcher retries them at once when the
    /// network changes. A TLS error is the certificate's, not the network's, and waits.
    package static let networkTokens: Set<String> = ["refused", "dns", "timeout", "lost", "network"]

    /// A short token for the file name's `e=` and for logs.
    package var token: String {
        switch self {
        case .refused: "refused"
        case .dns: "dns"
        case .timeout: "timeout"
        case .lost: "lost"
        case .tls: "tls"
        case .tooLarge: "too-large"
        case .bodyUnreadable: "payload"
        case .other: "network"
        }
    }

    /// A sentence for reasons and logs.
    package var description: String {
        switch self {
        case .refused: "connection refused"
        case .dns: "host name not found"
        case .timeout: "timed out"
        case let .lost(message): "connection lost without an answer: \(message)"
        case let .tls(message): "TLS error: \(message)"
        case let .tooLarge(message): "answer too large: \(message)"
        case let .bodyUnreadable(message):
            "the payload could not be read to its end: \(message); nothing was sent whole"
        case let .other(message): "network error: \(message)"
        }
    }

    /// Whether nothing more should go to this origin in this run: every failure but a lost connection,
    /// which says nothing about the next request, and an answer too large, which is this write's own.
    package var takesOriginDown: Bool {
        switch self {
        case .lost, .tooLarge, .bodyUnreadable: false
        default: true
        }
    }
}

/// Sends one request. Implemented over libcurl in SpoolHTTP, so that this library stays light.
package protocol Transport: Sendable {
    /// Sends `request` and returns the server's answer or why there was none. Never follows redirects.
    func send(_ request: HTTPRequest) async -> Result<HTTPResponse, TransportError>

    /// Where the task of lane `slot` (0, 1, … up to the concurrency) should run; nil for Swift's global
    /// executor.
    func laneExecutor(slot: Int) -> (any TaskExecutor)?
}

extension Transport {
    /// None by default: the lanes run on Swift's global executor.
    package func laneExecutor(slot: Int) -> (any TaskExecutor)? { nil }
}
