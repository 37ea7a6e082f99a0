import Foundation
import Glibc
import Synchronization

/// A real HTTP/1.1 server on 127.0.0.1 with keep-alive, run by the tests in their own process.
/// It records every request it receives, so tests assert what the server saw, not only the spool.
final class TestServer: @unchecked Sendable {
    struct Request: Sendable {
        let method: String
        let path: String
        let headers: [String: String]
        let body: Data
        let received: Date
        var text: String { String(decoding: body, as: UTF8.self) }
        func header(_ name: String) -> String? { headers[name.lowercased()] }
    }

    enum Reply: Sendable {
        case respond(Int, [String: String], String)
        /// Close the connection without answering (the "lost response").
        case close
        /// Wait, then answer.
        case delayed(Double, Int)
    }

    typealias Handler = @Sendable (Request) -> Reply

    let port: UInt16
    private let listener: Int32
    private let handler: Handler
    private let log = Mutex<[Request]>([])
    private let connections = Mutex<Set<Int32>>([])
    private let stopped = Atomic<Bool>(false)
    private let accepted = Atomic<Int>(0)

    /// Connections accepted so far.
    var connectionCount: Int { accepted.load(ordering: .relaxed) }

    /// Every request received so far, in arrival order.
    var requests: [Request] { log.withLock { $0 } }

    var baseURL: String { "http://127.0.0.1:\(port)" }

    init(port requested: UInt16 = 0, handler: @escaping Handler) throws {
        _ = Command.ignoreBrokenPipes
        self.handler = handler
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        _ = fcntl(listener, F_SETFD, FD_CLOEXEC)
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = requested.bigEndian
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard bound == 0, listen(listener, 128) == 0 else { throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) } }
        port = UInt16(bigEndian: address.sin_port)
        self.listener = listener
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    deinit { stop() }

    /// Stops listening and closes every connection.
    func stop() {
        if stopped.exchange(true, ordering: .relaxed) { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for fd in connections.withLock({ $0 }) { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    /// A port with nothing listening: bound once, then closed.
    static func deadPort() -> UInt16 {
        let server = try! TestServer { _ in .close }
        let port = server.port
        server.stop()
        return port
    }

    private func acceptLoop() {
        while !stopped.load(ordering: .relaxed) {
            let fd = accept(listener, nil, nil)
            if fd < 0 {
                if errno == EINTR { continue }
                return
            }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            accepted.add(1, ordering: .relaxed)
            var yes: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
            connections.withLock { _ = $0.insert(fd) }
            let thread = Thread { [self] in
                serve(fd)
                connections.withLock { _ = $0.remove(fd) }
                close(fd)
            }
            thread.start()
        }
    }

    private func serve(_ fd: Int32) {
        var buffer = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 65536)
        func fill() -> Bool {
            let n = read(fd, &chunk, chunk.count)
            if n <= 0 { return false }
            buffer += chunk[0..<n]
            return true
        }
        while true {
            var headerEnd: Int?
            while true {
                if let range = findCRLFCRLF(buffer) {
                    headerEnd = range
                    break
                }
                if !fill() { return }
            }
            let head = String(decoding: buffer[0..<headerEnd!], as: UTF8.self)
            buffer.removeFirst(headerEnd! + 4)
            var lines = head.components(separatedBy: "\r\n")
            let requestLine = lines.removeFirst().split(separator: " ")
            guard requestLine.count == 3 else { return }
            var headers: [String: String] = [:]
            for line in lines {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            var body = [UInt8]()
            if let length = headers["content-length"].flatMap(Int.init) {
                while buffer.count < length { if !fill() { return } }
                body = Array(buffer[0..<length])
                buffer.removeFirst(length)
            } else if headers["transfer-encoding"]?.lowercased() == "chunked" {
                while true {
                    var lineEnd: Int?
                    while lineEnd == nil {
                        lineEnd = findCRLF(buffer)
                        if lineEnd == nil, !fill() { return }
                    }
                    let size = Int(String(decoding: buffer[0..<lineEnd!], as: UTF8.self).split(separator: ";")[0], radix: 16) ?? 0
                    buffer.removeFirst(lineEnd! + 2)
                    while buffer.count < size + 2 { if !fill() { return } }
                    body += buffer[0..<size]
                    buffer.removeFirst(size + 2)
                    if size == 0 { break }
                }
            }
            let request = Request(method: String(requestLine[0]), path: String(requestLine[1]), headers: headers, body: Data(body), received: Date())
            log.withLock { $0.append(request) }
            var reply = handler(request)
            if case let .delayed(seconds, status) = reply {
                Thread.sleep(forTimeInterval: seconds)
                reply = .respond(status, [:], "")
            }
            guard case let .respond(status, replyHeaders, text) = reply else {
                shutdown(fd, Int32(SHUT_RDWR))
                return
            }
            var response = "HTTP/1.1 \(status) \(status < 300 ? "OK" : "Status")\r\nContent-Length: \(text.utf8.count)\r\n"
            for (name, value) in replyHeaders { response += "\(name): \(value)\r\n" }
            response += "\r\n" + text
            let bytes = Array(response.utf8)
            var offset = 0
            while offset < bytes.count {
                let n = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                if n <= 0 { return }
                offset += n
            }
        }
    }

    private func findCRLFCRLF(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for i in 0...(bytes.count - 4) where bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 { return i }
        return nil
    }

    private func findCRLF(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 2 else { return nil }
        for i in 0...(bytes.count - 2) where bytes[i] == 13 && bytes[i + 1] == 10 { return i }
        return nil
    }
}

/// The seed scenario's server: one resource with a version, `If-Match` checked, responses replayed by
/// `Idempotency-Key`, applied writes counted.
final class VersionedResource: @unchecked Sendable {
    struct State {
        var title = "first"
        var version = 1
        var writes = 0
        var applied: [String] = []
        var recorded: [String: TestServer.Reply] = [:]
        var requestCount = 0
    }

    let state = Mutex(State())
    /// Decides per request (by arrival number, from 1) whether to fail it before applying.
    let inject: @Sendable (Int, TestServer.Request) -> TestServer.Reply?
    /// Whether to drop the connection after applying the write with this arrival number.
    let loseResponse: @Sendable (Int) -> Bool

    init(inject: @escaping @Sendable (Int, TestServer.Request) -> TestServer.Reply? = { _, _ in nil },
         loseResponse: @escaping @Sendable (Int) -> Bool = { _ in false }) {
        self.inject = inject
        self.loseResponse = loseResponse
    }

    var writes: Int { state.withLock { $0.writes } }
    var title: String { state.withLock { $0.title } }
    var version: Int { state.withLock { $0.version } }
    var applied: [String] { state.withLock { $0.applied } }

    func handle(_ request: TestServer.Request) -> TestServer.Reply {
        state.withLock { state in
            state.requestCount += 1
            let number = state.requestCount
            if let key = request.header("Idempotency-Key"), let recorded = state.recorded[key] { return recorded }
            if let reply = inject(number, request) { return reply }
            let etag = "\"v\(state.version)\""
            if let expected = request.header("If-Match"), expected != etag {
                return .respond(412, ["ETag": etag], "version is \(state.version)")
            }
            state.version += 1
            state.writes += 1
            state.title = request.text
            state.applied.append(request.text)
            let reply = TestServer.Reply.respond(200, ["ETag": "\"v\(state.version)\""], "")
            if let key = request.header("Idempotency-Key") { state.recorded[key] = reply }
            return loseResponse(number) ? .close : reply
        }
    }
}
