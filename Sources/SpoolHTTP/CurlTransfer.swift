import CCurl
import Glibc
import SpoolSystem
import SpoolTransport

/// One request on its libcurl easy handle: the options that say what to send, and the callbacks that
/// collect the answer. Made on the caller's thread, then touched only by its engine's loop thread.
final class CurlTransfer: @unchecked Sendable {
    // @unchecked: after `init`, only its engine's loop thread uses it, one callback at a time.
    let easy: UnsafeMutableRawPointer
    let continuation: CheckedContinuation<Result<HTTPResponse, TransportError>, Never>
    private var headerList: UnsafeMutablePointer<curl_slist>?
    /// The body, copied where libcurl can read it until the transfer ends (CURLOPT_POSTFIELDS does not copy).
    private var body: UnsafeMutableRawBufferPointer?
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CCURL_ERROR_SIZE))
    /// The answer's status and fields, read from the header lines libcurl hands on.
    private var head: ResponseHead
    /// Set by the check before sending (CurlTransfer+Reuse.swift).
    var staleConnection = false
    /// Whether that check runs: on plain http only.
    var checksReuse = false
    /// The request's `onConnected`, called from the same callback.
    var onConnected: (@Sendable () -> Void)?
    /// The request's `onProgress`, told as the body file goes out (CurlTransfer+Upload.swift).
    var onProgress: (@Sendable (Int64) -> Void)?
    private var retriedFresh = false
    /// The body streamed from a file, how much of it libcurl took, and why it could not have the rest
    /// (CurlTransfer+Upload.swift).
    var upload: BodyFile?
    var uploaded: Int64 = 0
    var uploadProblem: String?
    private var kept: [UInt8] = []
    /// How much of a response body is kept (`HTTPRequest.keptBodyBytes`); the rest is read and dropped, or
    /// ends the transfer when `stopsAtLimit`.
    private let bodyLimit: Int
    private let stopsAtLimit: Bool
    /// Set when the body went on past `bodyLimit`.
    private var bodyCut = false

    /// A transfer for `request`, or nil when libcurl cannot make a handle (out of memory).
    init?(_ request: borrowing HTTPRequest, _ settings: borrowing TransportSettings,
          _ continuation: CheckedContinuation<Result<HTTPResponse, TransportError>, Never>) {
        guard let easy = CurlTransfer.takeHandle() else { return nil }
        self.easy = easy
        self.continuation = continuation
        head = ResponseHead(limit: settings.maxHeaderBytes)
        bodyLimit = request.keptBodyBytes
        stopsAtLimit = request.stopsAtKeptBytes
        errorBuffer[0] = 0
        configure(request, settings)
    }

    deinit {
        CurlTransfer.giveBack(easy)
        curl_slist_free_all(headerList)
        body?.deallocate()
        errorBuffer.deallocate()
    }

    /// Easy handles of ended transfers, reset to libcurl's defaults, for the next ones: a new handle costs
    /// an allocation of its buffers and state that a reset one keeps (about 6% of a delivery's user time).
    /// Connections are the multi handle's, so none comes along; a handle keeps only its TLS session cache,
    /// whose sessions libcurl resumes only for the same host and port, CA and client certificate settings,
    /// as it reuses connections.
    private static let spareHandles = Locked<[UnsafeMutableRawPointer]>([])
    /// At most this many are kept: `--concurrency` is usually far below.
    private static let sparesKept = 64

    /// A reset handle if one is spare, else a new one; nil when libcurl cannot make one.
    private static func takeHandle() -> UnsafeMutableRawPointer? {
        spareHandles.withLock { $0.popLast() } ?? curl_easy_init()
    }

    /// Resets a handle that is out of the multi handle, and keeps it for the next transfer.
    private static func giveBack(_ easy: UnsafeMutableRawPointer) {
        curl_easy_reset(easy)
        let kept = spareHandles.withLock { spares in
            guard spares.count < sparesKept else { return false }
            spares.append(easy)
            return true
        }
        if !kept { curl_easy_cleanup(easy) }
    }

    /// Sets the options every request has, then `CurlOptions`' mapping of this one.
    private func configure(_ request: HTTPRequest, _ settings: TransportSettings) {
        let options = CurlOptions(request, settings)
        let context = Unmanaged.passUnretained(self).toOpaque()
        long(CCURLOPT_NOSIGNAL, 1)
        string(CCURLOPT_URL, options.url)
        // Only http and https, even if a URL got past validation: libcurl speaks many more protocols.
        string(CCURLOPT_PROTOCOLS_STR, "http,https")
        long(CCURLOPT_PATH_AS_IS, 1)
        long(CCURLOPT_FOLLOWLOCATION, 0)
        if options.boundsWholeTransfer {
            long(CCURLOPT_TIMEOUT_MS, options.timeoutMilliseconds)
        } else {
            // An upload may rightly take long: what ends it is a stall of --timeout (under 1 byte/s).
            long(CCURLOPT_LOW_SPEED_LIMIT, 1)
            long(CCURLOPT_LOW_SPEED_TIME, max(1, options.timeoutMilliseconds / 1000))
        }
        long(CCURLOPT_CONNECTTIMEOUT_MS, options.timeoutMilliseconds)
        if let rate = options.maxSendBytesPerSecond {
            ccurl_setopt_offset(easy, Int32(CCURLOPT_MAX_SEND_SPEED_LARGE), rate)
        }
        long(CCURLOPT_TCP_KEEPALIVE, 1)
        long(CCURLOPT_PIPEWAIT, options.waitsForMultiplexing ? 1 : 0)
        long(CCURLOPT_HTTP_VERSION, options.httpVersion)
        pointer(CCURLOPT_ERRORBUFFER, errorBuffer)
        ccurl_setopt_callback(easy, Int32(CCURLOPT_HEADERFUNCTION), CurlTransfer.onHeader)
        pointer(CCURLOPT_HEADERDATA, context)
        ccurl_setopt_callback(easy, Int32(CCURLOPT_WRITEFUNCTION), CurlTransfer.onBody)
        pointer(CCURLOPT_WRITEDATA, context)
        onConnected = request.onConnected
        onProgress = request.onProgress
        watchBeforeRequest(context, checkReuse: options.checksReuse)
        if let file = options.caFile { string(CCURLOPT_CAINFO, file) }
        if let file = options.certificateFile { string(CCURLOPT_SSLCERT, file) }
        if let file = options.keyFile { string(CCURLOPT_SSLKEY, file) }
        if let proxy = options.proxy { string(CCURLOPT_PROXY, proxy) }
        // A proxy's answer to CONNECT is not the server's: without this, its "200 Connection established"
        // would reach the header callback as the answer to the request.
        long(CCURLOPT_SUPPRESS_CONNECT_HEADERS, 1)
        if let hosts = options.noProxy { string(CCURLOPT_NOPROXY, hosts) }
        switch options.method {
        case .get: break
        case .head: long(CCURLOPT_NOBODY, 1)
        case let .custom(method): string(CCURLOPT_CUSTOMREQUEST, method)
        }
        if let file = options.upload { configureUpload(file, context) }
        if let bytes = options.body {
            let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, bytes.count), alignment: 1)
            copy.copyBytes(from: bytes)
            body = copy
            pointer(CCURLOPT_POSTFIELDS, copy.baseAddress)
            ccurl_setopt_offset(easy, Int32(CCURLOPT_POSTFIELDSIZE_LARGE), Int64(bytes.count))
        }
        for line in options.headerLines { headerList = line.withCString { curl_slist_append(headerList, $0) } }
        pointer(CCURLOPT_HTTPHEADER, headerList)
    }

    func long(_ option: Int, _ value: Int) { ccurl_setopt_long(easy, Int32(option), value) }
    /// Sets a text option. Through `withCString`, which lends a Swift string's own bytes, where passing the
    /// string as a pointer copies it into a new array first: libcurl copies what it keeps (as it copies what
    /// `curl_slist_append` is given).
    private func string(_ option: Int, _ value: String) {
        _ = value.withCString { ccurl_setopt_pointer(easy, Int32(option), $0) }
    }
    func pointer(_ option: Int, _ value: UnsafeRawPointer?) { ccurl_setopt_pointer(easy, Int32(option), value) }

    /// Ends a transfer libcurl never started.
    func fail(_ failure: TransportError) {
        continuation.resume(returning: .failure(failure))
    }

    /// Ends the transfer with libcurl's result and resumes the waiting caller; or, when it stopped before
    /// sending anything because its connection held stale bytes, readies it to go again on a fresh one
    /// and returns false.
    func finish(_ code: CURLcode) -> Bool {
        if code == CURLcode(CCURLE_ABORTED_BY_CALLBACK), staleConnection, !retriedFresh {
            retriedFresh = true
            head.reset()
            kept = []
            bodyCut = false
            uploaded = 0
            long(CCURLOPT_FRESH_CONNECT, 1)
            return false
        }
        if let problem = uploadProblem {
            continuation.resume(returning: .failure(.bodyUnreadable(problem)))
        } else if code == CURLcode(CCURLE_OK) && status > 0 || answeredEarly(code)
            || code == CURLcode(CCURLE_WRITE_ERROR) && bodyCut && stopsAtLimit
        {
            continuation.resume(
                returning: .success(HTTPResponse(status: status, headers: head.fields, body: kept, bodyCut: bodyCut)))
        } else if head.isTooLarge {
            continuation.resume(
                returning: .failure(.tooLarge("its head is over \(head.limit) bytes (HTTP \(head.status))")))
        } else if let refused = proxyRefusal() {
            continuation.resume(returning: .failure(.other(refused)))
        } else {
            let message = String(cString: errorBuffer)
            continuation.resume(returning: .failure(CurlResultTable.failure(code, message: message)))
        }
        return true
    }

    /// The answer's status as libcurl read it, which decided how libcurl went on; the head's own reading
    /// when libcurl has none (a transfer it ended early).
    private var status: Int {
        var code = 0
        guard ccurl_getinfo_long(easy, Int32(CCURLINFO_RESPONSE_CODE), &code) == CURLcode(CCURLE_OK), code > 0
        else { return head.status }
        return code
    }

    /// Why the proxy would not open a tunnel, when it answered CONNECT with an error: nothing reached the
    /// server, and the failure is the proxy's, not a lost answer.
    private func proxyRefusal() -> String? {
        var code = 0
        guard ccurl_getinfo_long(easy, Int32(CCURLINFO_HTTP_CONNECTCODE), &code) == CURLcode(CCURLE_OK), code >= 300
        else { return nil }
        return "the proxy refused the tunnel (HTTP \(code) to CONNECT)"
    }

    /// Whether an HTTP/2 server sent its whole answer's head and then reset the stream, as RFC 9113
    /// section 8.1 lets it when it answers before reading all of the request (nginx does for a body it
    /// does not need). libcurl 7.88 reports the reset as an error; the answer is the server's all the same.
    private func answeredEarly(_ code: CURLcode) -> Bool {
        head.isComplete && !head.isHTTP1 && code == CURLcode(CCURLE_HTTP2_STREAM)
    }

    /// Keeps the start of the body; false to end the transfer (a read that has all it keeps).
    private func bodyData(_ data: UnsafeBufferPointer<UInt8>) -> Bool {
        let room = bodyLimit - kept.count
        if data.count > room { bodyCut = true }
        if room > 0 { kept += data.prefix(room) }
        return !(bodyCut && stopsAtLimit)
    }

    static let onHeader: ccurl_data_callback = { data, size, count, context in
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(context!).takeUnretainedValue()
        let bytes = UnsafeBufferPointer(
            start: UnsafeRawPointer(data!).assumingMemoryBound(to: UInt8.self), count: size * count)
        return transfer.head.take(bytes) ? size * count : 0
    }

    static let onBody: ccurl_data_callback = { data, size, count, context in
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(context!).takeUnretainedValue()
        let bytes = UnsafeBufferPointer(
            start: UnsafeRawPointer(data!).assumingMemoryBound(to: UInt8.self), count: size * count)
        return transfer.bodyData(bytes) ? size * count : 0
    }
}
