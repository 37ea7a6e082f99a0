import Glibc
import SpoolTestSupport

/// The HTTP servers the delivery cases send to: nginx when installed (plain, TLS with HTTP/2, or a TLS front
/// for a slow origin), otherwise the Swift test server for the plain case only.
final class BenchServer {
    let port: UInt16
    let name: String
    let directory: String
    let scheme: String
    private var nginx: pid_t?
    private var swiftServer: TestServer?

    /// nginx answering 204 on plain http, or the Swift test server without nginx.
    convenience init() {
        if which("nginx") != nil {
            self.init(nginx: "location / { return 204; }", tls: false)
        } else {
            self.init(swift: try! TestServer { _ in .respond(204, [:], "") })
        }
    }

    private init(swift server: TestServer) {
        swiftServer = server
        port = server.port
        directory = Fixtures.bareDirectory()
        scheme = "http"
        name = "Swift test server (n/a: nginx not installed)"
    }

    /// nginx with `locations` in its server block, on https (HTTP/2 by ALPN) with the run's `TestCertificates`
    /// when `tls`.
    init(nginx locations: String, tls: Bool, upstream: String = "") {
        directory = Fixtures.bareDirectory()
        port = TestServer.deadPort()
        scheme = tls ? "https" : "http"
        let secure = tls ? """
            listen 127.0.0.1:\(port) ssl http2;
            ssl_certificate \(TestCertificates.shared!.serverCertificate);
            ssl_certificate_key \(TestCertificates.shared!.serverKey);
            """ : "listen 127.0.0.1:\(port);"
        let conf = NginxConfiguration.text(
            directory: directory, server: secure + "\n" + locations, logFormat: "$connection $server_protocol",
            logOptions: "buffer=64k flush=1s",
            http: "keepalive_requests 10000000;\nkeepalive_timeout 120;\nhttp2_max_concurrent_streams 128;\n" + upstream
        )
        writeText("\(directory)/nginx.conf", conf)
        nginx = spawn(Placement.server([
            which("nginx")!, "-c", "\(directory)/nginx.conf", "-p", directory, "-e", "\(directory)/error.log"
        ]))
        name = tls ? "nginx (TLS, HTTP/2 by ALPN)" : "nginx (return 204)"
        let curlTrust = tls ? ["--cacert", TestCertificates.shared!.caFile] : []
        for _ in 0..<100 {
            if run(
                ["/usr/bin/curl", "-s", "-o", "/dev/null"] + curlTrust + [
                    "\(tls ? "https" : "http")://127.0.0.1:\(port)/"
                ]
            ).status == 0 {
                break
            }
            usleep(20_000)
        }
        // The probe's line reaches the log at the next flush (every second): then the log starts empty.
        usleep(1_200_000)
        truncate("\(directory)/access.log", 0)
    }

    var base: String { "\(scheme)://127.0.0.1:\(port)" }

    /// Distinct connections nginx logged since the last call, and the protocols it saw.
    func connectionsLogged() -> (connections: Int, protocols: Set<String>) {
        usleep(1_200_000)  // the log is flushed every second
        let lines = readText("\(directory)/access.log").split(separator: "\n")
        truncate("\(directory)/access.log", 0)
        let fields = lines.map { $0.split(separator: " ") }.filter { $0.count == 2 }
        return (Set(fields.map { String($0[0]) }).count, Set(fields.map { String($0[1]) }))
    }

    func stop() {
        if let nginx {
            kill(nginx, SIGTERM)
            var status: Int32 = 0
            waitpid(nginx, &status, 0)
        }
        swiftServer?.stop()
    }
}
