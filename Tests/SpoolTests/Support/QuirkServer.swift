import Foundation
import SpoolSystem
import SpoolTestSupport
import Glibc

/// Tests/Support/quirks.py, started on 127.0.0.1 or ::1, over TLS with the test CA's certificate when
/// asked: a server that sends trailers, huge heads, a 204 with a body, or answers after 2 s.
final class QuirkServer {
    let port: UInt16
    let baseURL: String
    private let server: PythonServer
    private var log: LogBuffer { server.log }

    /// One request as the server logged it.
    struct Request {
        let method: String
        let path: String
        let idempotencyKey: String
        let started: Double
    }

    /// The server on `host`, in network namespace `namespace` when given (`ip netns exec`).
    init(host: String = "127.0.0.1", tls: Bool = false, namespace: String? = nil) throws {
        var arguments = [host]
        if tls {
            guard let certificates = TestCertificates.shared else { throw Skip.missing("openssl") }
            arguments += [certificates.serverCertificate, certificates.serverKey]
        }
        server = try PythonServer("quirks.py", arguments, prefix: namespace.map { ["ip", "netns", "exec", $0] } ?? [])
        port = server.port
        let shown = host.contains(":") ? "[\(host)]" : host
        baseURL = "\(tls ? "https" : "http")://\(shown):\(port)"
    }

    deinit {
        server.process.stopServer()
    }

    /// What the server received, in order, once it has logged at least `count` requests (its log arrives
    /// through a pipe, a little after the answers) or two seconds have passed.
    func requests(atLeast count: Int) -> [Request] {
        for _ in 0..<100 where requests.count < count { usleep(20_000) }
        return requests
    }

    /// What the server has logged so far, in order.
    var requests: [Request] {
        log.text.withLock { $0 }.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ").map(String.init)
            guard fields.count == 4, let started = Double(fields[3]) else { return nil }
            return Request(method: fields[0], path: fields[1], idempotencyKey: fields[2], started: started)
        }
    }
}

/// What the server wrote to standard error, gathered as it arrives.
final class LogBuffer: Sendable {
    let text = Locked("")
}
