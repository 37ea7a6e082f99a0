import Foundation
import Glibc
import SpoolSystem
import Synchronization

/// A real HTTP/1.1 server on 127.0.0.1 with keep-alive, run by the tests (and by spool-bench when nginx is
/// missing) in their own process.
/// It records every request it receives, so tests assert what the server saw, not only the spool.
package final class TestServer: @unchecked Sendable {
    package struct Request: Sendable {
        package let method: String
        package let path: String
        package let headers: [String: String]
        package let body: Data
        package let received: Date
        /// CLOCK_MONOTONIC at arrival, nanoseconds.
        package let monotonic: UInt64
        package var text: String { String(decoding: body, as: UTF8.self) }
        package func header(_ name: String) -> String? { headers[name.lowercased()] }
    }

    package enum Reply: Sendable {
        case respond(Int, [String: String], String)
        /// Close the connection without answering (the "lost response").
        case close
        /// Wait, then answer; a client that hangs up meanwhile gets nothing (`hungUp` counts it).
        case delayed(Double, Int)
    }

    package typealias Handler = @Sendable (Request) -> Reply

    package let port: UInt16
    private let listener: Int32
    private let handler: Handler
    private let log = Locked<[Request]>([])
    private let connections = Locked<Set<Int32>>([])
    private let stopped = Atomic<Bool>(false)
    private let accepted = Atomic<Int>(0)

    /// Connections accepted so far.
    package var connectionCount: Int { accepted.load(ordering: .relaxed) }

    /// Every request received so far, in arrival order.
    package var requests: [Request] { log.withLock { $0 } }
    /// Requests whose client hung up while a `.delayed` answer waited: there was no one left to answer.
    package var hungUp: Int { hangUps.withLock { $0 } }
    private let hangUps = Locked(0)

    package var baseURL: String { "http://127.0.0.1:\(port)" }

    package init(port requested: UInt16 = 0, handler: @escaping Handler) throws {
        _ = TestServer.ignoreBrokenPipes
        self.handler = handler
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        _ = fcntl(listener, F_SETFD, FD_CLOEXEC)
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = requested.bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(listener, 128) == 0 else { throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        self.listener = listener
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    deinit { stop() }

    /// Writing to a socket or pipe whose reader is gone gets EPIPE, not a dead process.
    package static let ignoreBrokenPipes: Void = { signal(SIGPIPE, SIG_IGN) }()

    /// Monotonic arrival time of each request, in nanoseconds, for latency measurements.
    package var arrivals: [UInt64] { log.withLock { $0.map(\.monotonic) } }

    /// Stops listening and closes every connection.
    package func stop() {
        if stopped.exchange(true, ordering: .relaxed) { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for fd in connections.withLock({ $0 }) { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    /// A port with nothing listening: bound once, then closed.
    package static func deadPort() -> UInt16 {
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
            guard requestLine.count == 3 else {
                // Not an HTTP request line: answered as a real server answers it, and the connection closed,
                // so that a client (and the test behind it) sees the error instead of a silent hang-up.
                let answer = Array("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8)
                _ = answer.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                shutdown(fd, Int32(SHUT_RDWR))
                return
            }
            var headers: [String: String] = [:]
            for line in lines {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                    in: .whitespaces)
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
                    let size =
                        Int(String(decoding: buffer[0..<lineEnd!], as: UTF8.self).split(separator: ";")[0], radix: 16)
                        ?? 0
                    buffer.removeFirst(lineEnd! + 2)
                    while buffer.count < size + 2 { if !fill() { return } }
                    body += buffer[0..<size]
                    buffer.removeFirst(size + 2)
                    if size == 0 { break }
                }
            }
            let request = Request(
                method: String(requestLine[0]), path: String(requestLine[1]), headers: headers, body: Data(body),
                received: Date(), monotonic: TestServer.monotonicNow())
            log.withLock { $0.append(request) }
            var reply = handler(request)
            if case let .delayed(seconds, status) = reply {
                guard TestServer.holdAnswer(fd, seconds: seconds) else {
                    // Not a failed set-up: the client (a sender at its --timeout, or stopped) closed first.
                    hangUps.withLock { $0 += 1 }
                    return
                }
                reply = .respond(status, [:], "")
            }
            guard case let .respond(status, replyHeaders, text) = reply else {
                shutdown(fd, Int32(SHUT_RDWR))
                return
            }
            var response =
                "HTTP/1.1 \(status) \(status < 300 ? "OK" : "Status")\r\nContent-Length: \(text.utf8.count)\r\n"
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

    /// CLOCK_MONOTONIC in nanoseconds.
    /// Holds an answer back `seconds`, as a slow server does, for as long as the connection lasts: waits on the
    /// socket with that deadline, so that a client that gives up (its timeout) or a `stop` ends the wait at
    /// once. Returns false when the connection ended first: there is no one left to answer.
    static func holdAnswer(_ fd: Int32, seconds: Double) -> Bool {
        let deadline = monotonicNow() + UInt64(max(0, seconds) * 1e9)
        // POLLRDHUP (0x2000, Linux): the client closed; POLLHUP and POLLERR come unasked (a `stop` shuts it down).
        var entry = pollfd(fd: fd, events: Int16(0x2000), revents: 0)
        while case let now = monotonicNow(), now < deadline {
            let milliseconds = Int32(min(Double(deadline - now) / 1e6, Double(Int32.max)).rounded(.up))
            let ready = poll(&entry, 1, milliseconds)
            if ready > 0 || ready < 0 && errno != EINTR { return false }
        }
        return true
    }

    package static func monotonicNow() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    private func findCRLFCRLF(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for i in 0...(bytes.count - 4)
        where bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 { return i }
        return nil
    }

    private func findCRLF(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 2 else { return nil }
        for i in 0...(bytes.count - 2) where bytes[i] == 13 && bytes[i + 1] == 10 { return i }
        return nil
    }
}

