import Dispatch
import Glibc
import Spool
import Synchronization

/// A small HTTP/1.1 client over plain sockets for `http://` origins, with keep-alive connections pooled per
/// origin.
///
/// Why not URLSession here: on Linux, when a server closes a kept-alive connection without answering,
/// URLSession spins on the dead socket until the request times out (30 s of a busy core per dropped
/// connection, measured), and it costs about 0.4 ms of CPU per request. This client reports such a request
/// at once as closed without an answer, and is the cheaper path. `https://` still goes through URLSession.
public final class SocketTransport: Transport, @unchecked Sendable {
    // @unchecked: the only mutable state is `idle`, behind a Mutex.
    let timeout: Double
    let maxIdle: Int
    /// Idle connections per origin, with when each was last used.
    let idle = Mutex<[String: [(fd: Int32, since: Double)]]>([:])
    /// Idle connections older than this are closed: servers drop them anyway, and a watcher that once
    /// talked to many origins must not keep a descriptor open for each.
    static let idleLifetime = 30.0
    /// How much of a response body is kept for reasons; the rest is read and dropped.
    static let bodyLimit = 4096
    /// Longest response body drained to keep a connection; longer ones close it instead.
    static let drainLimit = 1 << 20

    /// A client giving every request at most `timeout` seconds in all, keeping up to `connections` idle
    /// connections per origin.
    public init(timeout: Double, connections: Int) {
        self.timeout = timeout
        self.maxIdle = max(1, connections)
    }

    deinit {
        idle.withLock { pools in for connections in pools.values { connections.forEach { _ = close($0.fd) } } }
    }

    public func send(_ request: HTTPRequest) async -> Result<HTTPResponse, TransportFailure> {
        await withCheckedContinuation { continuation in
            // Blocking I/O (with poll deadlines) belongs on a Dispatch thread, not the cooperative pool.
            DispatchQueue.global().async { continuation.resume(returning: self.perform(request)) }
        }
    }

    /// Where a URL points.
    struct Target {
        let host: String
        let port: UInt16
        let hostHeader: String
        let path: String
        var poolKey: String { "\(host):\(port)" }

        init?(_ url: String) {
            guard url.lowercased().hasPrefix("http://") else { return nil }
            let rest = url.dropFirst(7)
            let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
            var path = String(rest.dropFirst(authority.count).prefix { $0 != "#" })
            if path.isEmpty || path.hasPrefix("?") { path = "/" + path }
            var host = Substring(authority), port: UInt16 = 80
            if authority.hasPrefix("[") {
                guard let close = authority.firstIndex(of: "]") else { return nil }
                host = authority[authority.index(after: authority.startIndex)..<close]
                let after = authority[authority.index(after: close)...]
                if after.hasPrefix(":") { guard let p = UInt16(after.dropFirst()) else { return nil }; port = p }
            } else if let colon = authority.lastIndex(of: ":") {
                host = authority[..<colon]
                guard let p = UInt16(authority[authority.index(after: colon)...]) else { return nil }
                port = p
            }
            guard !host.isEmpty else { return nil }
            self.host = String(host)
            self.port = port
            self.hostHeader = String(authority)
            self.path = path
        }
    }

    enum Failure: Error {
        case transport(TransportFailure)
        /// The connection died before any byte of an answer.
        case noAnswer(afterSending: Bool)
    }

    func perform(_ request: HTTPRequest) -> Result<HTTPResponse, TransportFailure> {
        guard let target = Target(request.url) else { return .failure(.other("not an http:// URL: \(request.url)")) }
        let deadline = Timestamp.monotonicSeconds() + timeout
        let bytes = Self.requestBytes(request, target)
        // A kept-alive connection the server closed while idle fails before any answer: then, and only then,
        // the request goes once more on a fresh connection. Every request carries an Idempotency-Key, so even
        // a write the server did apply is answered from its record, not applied twice.
        if let fd = takeIdle(target.poolKey) {
            switch exchange(fd, request, bytes, deadline: deadline) {
            case let .success(response):
                return .success(response)
            case .failure(.noAnswer):
                break
            case let .failure(.transport(failure)):
                return .failure(failure)
            }
        }
        let fd: Int32
        switch connect(target, deadline: deadline) {
        case let .success(connected): fd = connected
        case let .failure(failure): return .failure(failure)
        }
        switch exchange(fd, request, bytes, deadline: deadline) {
        case let .success(response): return .success(response)
        case .failure(.noAnswer): return .failure(.closedWithoutAnswer)
        case let .failure(.transport(failure)): return .failure(failure)
        }
    }

    static func requestBytes(_ request: HTTPRequest, _ target: Target) -> [UInt8] {
        var head = "\(request.method) \(target.path) HTTP/1.1\r\nHost: \(target.hostHeader)\r\n"
        for (name, value) in request.headers { head += "\(name): \(value)\r\n" }
        let body = request.body ?? []
        if request.body != nil || ["POST", "PUT", "PATCH"].contains(request.method.uppercased()) {
            head += "Content-Length: \(body.count)\r\n"
        }
        head += "\r\n"
        return Array(head.utf8) + body
    }

    /// An idle connection to `key` that is still clean: one with unread bytes (a late answer, a 408) or
    /// already closed by the server is dropped rather than mistaken for the next answer.
    func takeIdle(_ key: String) -> Int32? {
        while let fd = idle.withLock({ pools in pools[key]?.popLast()?.fd }) {
            var byte: UInt8 = 0
            let n = recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
            if n < 0, errno == EAGAIN || errno == EWOULDBLOCK { return fd }
            close(fd)
        }
        return nil
    }

    func giveBack(_ fd: Int32, _ key: String) {
        let now = Timestamp.monotonicSeconds()
        let (kept, expired) = idle.withLock { pools -> (Bool, [Int32]) in
            var expired: [Int32] = []
            for (origin, connections) in pools {
                let fresh = connections.filter { now - $0.since < Self.idleLifetime }
                if fresh.count != connections.count {
                    expired += connections.filter { now - $0.since >= Self.idleLifetime }.map(\.fd)
                    pools[origin] = fresh.isEmpty ? nil : fresh
                }
            }
            guard pools[key, default: []].count < maxIdle else { return (false, expired) }
            pools[key, default: []].append((fd, now))
            return (true, expired)
        }
        expired.forEach { close($0) }
        if !kept { close(fd) }
    }

    func connect(_ target: Target, deadline: Double) -> Result<Int32, TransportFailure> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(target.host, String(target.port), &hints, &list)
        guard status == 0, let first = list else { return .failure(.dns) }
        defer { freeaddrinfo(list) }
        var failure = TransportFailure.refused
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let address = entry {
            entry = address.pointee.ai_next
            let fd = socket(address.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard fd >= 0 else { continue }
            var yes: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
            if Glibc.connect(fd, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 { return .success(fd) }
            guard errno == EINPROGRESS else {
                failure = Self.connectFailure(errno)
                close(fd)
                continue
            }
            guard wait(fd, for: Int16(POLLOUT), deadline: deadline) else {
                close(fd)
                return .failure(.timeout)
            }
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
            if error == 0 { return .success(fd) }
            failure = Self.connectFailure(error)
            close(fd)
        }
        return .failure(failure)
    }

    static func connectFailure(_ error: Int32) -> TransportFailure {
        switch error {
        case ECONNREFUSED: .refused
        case ECONNRESET: .reset
        case ETIMEDOUT: .timeout
        default: .other("connect: \(String(cString: strerror(error)))")
        }
    }

    /// Waits until `fd` is ready for `events` or the deadline passes.
    func wait(_ fd: Int32, for events: Int16, deadline: Double) -> Bool {
        while true {
            let left = deadline - Timestamp.monotonicSeconds()
            if left <= 0 { return false }
            var descriptor = pollfd(fd: fd, events: events, revents: 0)
            let ready = poll(&descriptor, 1, Int32(min(left, 3600) * 1000) + 1)
            if ready > 0 { return true }
            if ready < 0, errno != EINTR { return true }
        }
    }

    /// Sends the request on `fd` and reads the answer; `fd` is closed or pooled again.
    func exchange(_ fd: Int32, _ request: HTTPRequest, _ bytes: [UInt8], deadline: Double) -> Result<HTTPResponse, Failure> {
        var reusable = false
        defer { if !reusable { close(fd) } }
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            if n > 0 {
                sent += n
                continue
            }
            if n < 0, errno == EAGAIN || errno == EINTR {
                guard wait(fd, for: Int16(POLLOUT), deadline: deadline) else { return .failure(.transport(.timeout)) }
                continue
            }
            // The server may have answered early (413, 401) and closed: read that answer if it is there.
            break
        }
        var reader = ResponseReader(fd: fd, deadline: deadline, transport: self)
        var response: HTTPResponse
        do throws(SocketTransport.Failure) {
            var interim = 0
            repeat {
                response = try reader.readHead()
                interim += 1
                // A server answering with informational heads only would hold the request forever.
                if interim > 10 { throw .transport(.other("more than 10 informational (1xx) answers")) }
            } while (100..<200).contains(response.status)
            let noBody = request.method.uppercased() == "HEAD" || response.status == 204 || response.status == 304
            let framing = try reader.readBody(response, noBody: noBody)
            response.body = framing.kept
            let connection = response.headers["connection"]?.lowercased() ?? ""
            reusable = framing.complete && sent == bytes.count && !connection.contains("close") && reader.http11
        } catch {
            return .failure(error)
        }
        if reusable {
            reusable = true
            giveBack(fd, Self.poolKey(of: request.url))
        }
        return .success(response)
    }

    static func poolKey(of url: String) -> String {
        Target(url)?.poolKey ?? url
    }
}

/// Reads one HTTP/1.1 response from a non-blocking socket, within a deadline.
struct ResponseReader {
    let fd: Int32
    let deadline: Double
    let transport: SocketTransport
    var buffer: [UInt8] = []
    var received = 0
    var http11 = true

    init(fd: Int32, deadline: Double, transport: SocketTransport) {
        self.fd = fd
        self.deadline = deadline
        self.transport = transport
    }

    /// Reads more bytes; false at end of stream.
    mutating func fill() throws(SocketTransport.Failure) -> Bool {
        // Checked on every read, not only when waiting: a server trickling bytes must not hold the request.
        if Timestamp.monotonicSeconds() > deadline { throw .transport(.timeout) }
        var chunk = [UInt8](repeating: 0, count: 16384)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                buffer += chunk[0..<n]
                received += n
                return true
            }
            if n == 0 { return false }
            if errno == EAGAIN || errno == EINTR {
                guard transport.wait(fd, for: Int16(POLLIN), deadline: deadline) else { throw .transport(.timeout) }
                continue
            }
            if received == 0 { throw .noAnswer(afterSending: true) }
            throw .transport(.reset)
        }
    }

    mutating func readHead() throws(SocketTransport.Failure) -> HTTPResponse {
        var end: Int?
        while true {
            if buffer.count >= 4 {
                for i in 0...(buffer.count - 4) where buffer[i] == 13 && buffer[i + 1] == 10 && buffer[i + 2] == 13 && buffer[i + 3] == 10 {
                    end = i
                    break
                }
            }
            if end != nil { break }
            guard buffer.count < 65536 else { throw .transport(.other("response headers larger than 64 KiB")) }
            if try !fill() {
                if received == 0 { throw .noAnswer(afterSending: true) }
                throw .transport(.other("connection closed in the middle of the response headers"))
            }
        }
        let head = String(decoding: buffer[0..<end!], as: UTF8.self)
        buffer.removeFirst(end! + 4)
        var lines = head.split(separator: "\r\n", omittingEmptySubsequences: false)
        let statusLine = lines.removeFirst().split(separator: " ", maxSplits: 2)
        guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/1."), let status = Int(statusLine[1]), (100...999).contains(status) else {
            throw .transport(.other("not an HTTP/1.x response"))
        }
        http11 = statusLine[0] == "HTTP/1.1"
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = String(line[line.index(after: colon)...]).trimmingWhitespace()
            headers[name] = headers[name].map { "\($0), \(value)" } ?? value
        }
        if !http11, headers["connection"]?.lowercased() == "keep-alive" { http11 = true }
        return HTTPResponse(status: status, headers: headers, body: [])
    }

    /// Reads the body as framed; returns the kept prefix and whether the framing ended cleanly.
    mutating func readBody(_ response: HTTPResponse, noBody: Bool) throws(SocketTransport.Failure) -> (kept: [UInt8], complete: Bool) {
        if noBody { return ([], true) }
        var kept: [UInt8] = []
        var total = 0
        func keep(_ bytes: ArraySlice<UInt8>) {
            total += bytes.count
            if kept.count < SocketTransport.bodyLimit { kept += bytes.prefix(SocketTransport.bodyLimit - kept.count) }
        }
        if response.headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
            while true {
                guard let lineEnd = try line() else { return (kept, false) }
                let sizeText = String(decoding: lineEnd, as: UTF8.self).split(separator: ";").first ?? ""
                guard let size = Int(sizeText.trimmingWhitespace(), radix: 16), size >= 0 else {
                    throw .transport(.other("bad chunk size in the response"))
                }
                if size == 0 {
                    var trailers = 0
                    while let trailer = try line(), !trailer.isEmpty {
                        trailers += 1
                        if trailers > 100 { return (kept, false) }
                    }
                    return (kept, buffer.isEmpty)
                }
                // Checked before reading, and without adding to the size: a hostile size must not overflow.
                guard size <= SocketTransport.drainLimit - total else { return (kept, false) }
                while buffer.count < size + 2 { if try !fill() { return (kept, false) } }
                guard buffer[size] == 13, buffer[size + 1] == 10 else { throw .transport(.other("chunk not followed by CRLF")) }
                keep(buffer[0..<size])
                buffer.removeFirst(size + 2)
            }
        }
        if let lengthText = response.headers["content-length"] {
            guard let length = Int(lengthText.trimmingWhitespace()), length >= 0 else { throw .transport(.other("bad Content-Length in the response")) }
            if length > SocketTransport.drainLimit { return (kept, false) }
            while buffer.count < length { if try !fill() { return (Array(buffer.prefix(SocketTransport.bodyLimit)), false) } }
            keep(buffer[0..<length])
            buffer.removeFirst(length)
            return (kept, buffer.isEmpty)
        }
        // Neither: the body runs to the end of the connection.
        while total + buffer.count <= SocketTransport.drainLimit, try fill() {}
        keep(buffer[...])
        return (kept, false)
    }

    /// One CRLF-terminated line, without the CRLF; nil at end of stream.
    mutating func line() throws(SocketTransport.Failure) -> [UInt8]? {
        while true {
            if let cr = buffer.firstIndex(of: 13), cr + 1 < buffer.count, buffer[cr + 1] == 10 {
                let line = Array(buffer[0..<cr])
                buffer.removeFirst(cr + 2)
                return line
            }
            if buffer.count > 65536 { throw .transport(.other("response line too long")) }
            if try !fill() { return nil }
        }
    }
}

/// Plain `http://` over `SocketTransport`, `https://` over URLSession (set up only if used).
public final class RoutingTransport: Transport, @unchecked Sendable {
    let plain: any Transport
    let secure: any Transport

    /// Routes by scheme; `SPOOL_HTTP_CLIENT=urlsession` sends everything through URLSession.
    public init(timeout: Double, connections: Int, forceURLSession: Bool = Program.environment("SPOOL_HTTP_CLIENT") == "urlsession") {
        secure = URLSessionTransport(timeout: timeout, connections: connections)
        plain = forceURLSession ? secure : SocketTransport(timeout: timeout, connections: connections)
    }

    public func send(_ request: HTTPRequest) async -> Result<HTTPResponse, TransportFailure> {
        request.url.lowercased().hasPrefix("http://") ? await plain.send(request) : await secure.send(request)
    }
}
