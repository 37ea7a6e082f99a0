import Foundation
import Glibc
import SpoolTestSupport

/// Debian's nginx, started by a test on 127.0.0.1 with its own configuration, writing an access log
/// that records what the server itself saw: the connection serial, the protocol, the request and its
/// Idempotency-Key. Stopped (and its files removed) when the test drops it.
final class Nginx {
    let port: UInt16
    let directory: String
    private let process: Process

    /// The path to nginx, or nil with the reason printed.
    static let binary: String? = {
        for path in ["/usr/sbin/nginx", "/usr/bin/nginx"] where FileManager.default.isExecutableFile(atPath: path) {
            return path
        }
        print("skipped: these tests need nginx (Debian's nginx-light); .ci/run installs it")
        return nil
    }()

    /// Starts nginx serving `locations` (the body of a `server` block after its `listen`), on https with
    /// the test CA's server certificate when `tls`, with http2 when `http2`.
    /// `http` goes in the `http` block (a `limit_req_zone`, say); `logFormat` replaces the access log's format.
    init(
        tls: Bool, http2: Bool = false, clientCertificates: Bool = false, locations: String, http: String = "",
        logFormat: String = "$connection $server_protocol $request_method $uri $http_idempotency_key $status"
    ) throws {
        guard let binary = Nginx.binary else { throw Skip.missing("nginx") }
        directory = NSTemporaryDirectory() + "spool-nginx-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        port = TestServer.deadPort()
        var listen = "listen 127.0.0.1:\(port)\(tls ? " ssl" : "")\(http2 ? " http2" : "");"
        if tls {
            guard let certificates = TestCertificates.shared else { throw Skip.missing("openssl") }
            listen +=
                "\n ssl_certificate \(certificates.serverCertificate);\n ssl_certificate_key \(certificates.serverKey);"
            if clientCertificates {
                listen += "\n ssl_client_certificate \(certificates.caFile);\n ssl_verify_client on;"
            }
        }
        let configuration = NginxConfiguration.text(
            directory: directory, server: listen + "\n" + locations,
            logFormat: logFormat, http: http)
        try configuration.write(toFile: directory + "/nginx.conf", atomically: true, encoding: .utf8)
        process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["-c", directory + "/nginx.conf", "-p", directory, "-e", directory + "/error.log"]
        process.standardError = FileHandle.nullDevice
        try process.run()
        for _ in 0..<200 {
            if Nginx.listening(port) { return }
            usleep(20_000)
        }
        throw Skip.missing(
            "nginx did not start: \((try? String(contentsOfFile: directory + "/error.log", encoding: .utf8)) ?? "")")
    }

    deinit {
        process.stopServer()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The access log, one entry per request, as nginx wrote it.
    var accessLog: [LogEntry] {
        let text = (try? String(contentsOfFile: directory + "/access.log", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map { LogEntry(fields: $0.split(separator: " ").map(String.init)) }
    }

    /// One line of the access log.
    struct LogEntry {
        let fields: [String]
        var connection: String { fields[0] }
        var httpProtocol: String { fields[1] }
        var method: String { fields[2] }
        var path: String { fields[3] }
        var idempotencyKey: String { fields[4] }
        var status: String { fields[5] }
    }

    static func listening(_ port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}

/// Why a test that needs a program the machine lacks did not run.
enum Skip: Error, CustomStringConvertible {
    case missing(String)
    var description: String {
        switch self {
        case let .missing(what): "skipped: needs \(what)"
        }
    }
}

extension Process {
    /// Stops a server started for a test: SIGTERM, then SIGKILL if it has not gone within two seconds.
    func stopServer() {
        if isRunning { kill(processIdentifier, SIGTERM) }
        for _ in 0..<100 where isRunning { usleep(20_000) }
        if isRunning { kill(processIdentifier, SIGKILL) }
        waitUntilExit()
    }
}
