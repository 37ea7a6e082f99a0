import Glibc
import SpoolTestSupport

/// The HTTP server the delivery cases send to: nginx answering 204 when installed, otherwise the Swift test server.
final class BenchServer {
    let port: UInt16
    let name: String
    private var nginx: pid_t?
    private var swiftServer: TestServer?

    init() {
        if let binary = which("nginx") {
            let dir = Fixtures.bareDirectory()
            let port = TestServer.deadPort()
            let conf = """
                worker_processes 1;
                daemon off;
                pid \(dir)/nginx.pid;
                error_log \(dir)/error.log;
                events { worker_connections 1024; }
                http {
                    access_log off;
                    keepalive_requests 10000000;
                    keepalive_timeout 120;
                    client_body_temp_path \(dir)/body;
                    proxy_temp_path \(dir)/proxy;
                    fastcgi_temp_path \(dir)/fastcgi;
                    uwsgi_temp_path \(dir)/uwsgi;
                    scgi_temp_path \(dir)/scgi;
                    server {
                        listen 127.0.0.1:\(port);
                        location / { return 204; }
                    }
                }
                """
            writeText("\(dir)/nginx.conf", conf)
            nginx = spawn([binary, "-c", "\(dir)/nginx.conf", "-p", dir, "-e", "\(dir)/error.log"])
            self.port = port
            name = "nginx (return 204)"
            // Wait until it answers.
            for _ in 0..<100 {
                if run(["/usr/bin/curl", "-s", "-o", "/dev/null", "http://127.0.0.1:\(port)/"]).status == 0 { break }
                usleep(20_000)
            }
        } else {
            let server = try! TestServer { _ in .respond(204, [:], "") }
            swiftServer = server
            port = server.port
            name = "Swift test server (n/a: nginx not installed)"
        }
    }

    var base: String { "http://127.0.0.1:\(port)" }

    func stop() {
        if let nginx {
            kill(nginx, SIGTERM)
            var status: Int32 = 0
            waitpid(nginx, &status, 0)
        }
        swiftServer?.stop()
    }
}
