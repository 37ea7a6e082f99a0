import CCurl
import SpoolSystem
import SpoolTransport

/// What one request asks of libcurl, decided from the request and the engine's settings alone: a pure
/// mapping, which the tests check option by option, and which `CurlTransfer` sets on its easy handle.
/// Options that are the same for every request (no signals, no redirects, only http and https) are set there.
struct CurlOptions: Equatable {
    /// How the method reaches libcurl.
    enum Method: Equatable {
        /// libcurl's default GET.
        case get
        /// `CURLOPT_NOBODY`: HEAD, whose answer has no body to wait for.
        case head
        /// `CURLOPT_CUSTOMREQUEST` with the method as the operation spelled it.
        case custom(String)
    }

    var url: String
    /// `CURLOPT_TIMEOUT_MS` and `CURLOPT_CONNECTTIMEOUT_MS`.
    var timeoutMilliseconds: Int
    /// `CURLOPT_PIPEWAIT`: on https with the version left to ALPN, wait for a connection being set up to learn
    /// whether it multiplexes rather than open another. Never on http: there is no h2c here, and the wait
    /// would last a whole first answer.
    var waitsForMultiplexing: Bool
    /// `CURLOPT_HTTP_VERSION`.
    var httpVersion: Int
    /// Whether a reused connection is checked for stale bytes before sending: on plain http only.
    var checksReuse: Bool
    /// `CURLOPT_CAINFO`: the operation's auth profile first, then the origin's route, then the command line.
    var caFile: String?
    var certificateFile: String?
    var keyFile: String?
    var proxy: String?
    var noProxy: String?
    var method: Method
    /// `CURLOPT_POSTFIELDS` and its size: the body, or an empty one for the methods that carry one.
    var body: [UInt8]?
    /// `CURLOPT_UPLOAD` with `CURLOPT_INFILESIZE_LARGE` and the read callback: a body streamed from a file, sent
    /// with its `Content-Length` under the request's own method (`CURLOPT_CUSTOMREQUEST`).
    var upload: BodyFile?
    /// Whether `--timeout` bounds the whole transfer (`CURLOPT_TIMEOUT_MS`); for an upload it bounds the
    /// connection and any stall instead (`CURLOPT_LOW_SPEED_TIME` at 1 byte/s), since a large payload on a slow
    /// link may rightly take longer.
    var boundsWholeTransfer: Bool
    /// `CURLOPT_MAX_SEND_SPEED_LARGE`: the origin's `max-rate`, else `--max-rate`; nil: no cap.
    var maxSendBytesPerSecond: Int64?
    /// `CURLOPT_HTTPHEADER`: the operation's headers, plus empty ones (`Name:`) that stop libcurl adding its own
    /// defaults (`Accept: */*`, a form `Content-Type` for a body, `Expect: 100-continue` for a large one) that a
    /// server could mistake; `Name;` sends a header with an empty value.
    var headerLines: [String]

    /// The options for `request` under `settings`, both borrowed: read, not kept, so neither is copied whole.
    init(_ request: borrowing HTTPRequest, _ settings: borrowing TransportSettings) {
        url = request.url
        timeoutMilliseconds = Int(settings.timeoutSeconds * 1000)
        let secure = request.origin.hasPrefix("https:")
        let version = request.route.version ?? settings.version
        waitsForMultiplexing = secure && version == .automatic
        httpVersion = version == .http1_1 ? CCURL_HTTP_VERSION_1_1 : CCURL_HTTP_VERSION_2TLS
        checksReuse = !secure
        maxSendBytesPerSecond = request.route.maxSendBytesPerSecond ?? settings.maxSendBytesPerSecond
        caFile = request.tls.caFile ?? request.route.caFile ?? settings.caFile
        certificateFile = request.tls.certificateFile
        keyFile = request.tls.keyFile
        proxy = request.route.proxy ?? settings.proxy ?? CurlOptions.environmentProxyOrNone
        // With no proxy at all, no host needs passing it: "" keeps libcurl from looking up `no_proxy` as well.
        noProxy = request.route.noProxy ?? settings.noProxy ?? (proxy == "" ? "" : nil)
        let upper = request.method.uppercased()
        upload = request.bodyFile
        boundsWholeTransfer = request.bodyFile == nil
        if request.bodyFile != nil {
            method = .custom(request.method)
            body = nil
        } else {
            method = upper == "HEAD" ? .head : upper != "GET" || request.body != nil ? .custom(request.method) : .get
            switch upper {
            case "POST", "PUT", "PATCH": body = request.body ?? []
            default: body = request.body
            }
        }
        headerLines = []
        headerLines.reserveCapacity(request.headers.count + CurlOptions.suppressedDefaults.count)
        for header in request.headers {
            headerLines.append(header.value.isEmpty ? "\(header.name);" : "\(header.name): \(header.value)")
        }
        // A scan, not a set: a request has a handful of headers, and hashing them cost more than the scan.
        for (name, lowercased) in CurlOptions.suppressedDefaults
        where !request.headers.contains(where: { HTTPSyntax.equalsIgnoringCase($0.name, lowercased) }) {
            headerLines.append(name + ":")
        }
    }

    /// The variables libcurl reads a proxy from, for http and https alike (curl ignores an upper-case
    /// `HTTP_PROXY`, which a CGI request can set).
    static let proxyVariables = ["http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"]

    /// nil when the environment names a proxy, which libcurl then reads as curl does; else "", which tells
    /// libcurl there is none. Why: without a proxy option libcurl looks up five variables for every request,
    /// a scan of the whole environment each; they are read once here.
    static let environmentProxyOrNone = proxyOrNone(environment: Environment.value)

    /// `environmentProxyOrNone` for the environment `value` reads (nil: unset or empty).
    static func proxyOrNone(environment value: (String) -> String?) -> String? {
        proxyVariables.contains { value($0) != nil } ? nil : ""
    }

    /// The headers libcurl would add of its own, with their names lower-cased: made once, not per request.
    static let suppressedDefaults: [(String, StaticString)] = [
        ("Accept", "accept"), ("Expect", "expect"), ("Content-Type", "content-type"),
    ]
}
