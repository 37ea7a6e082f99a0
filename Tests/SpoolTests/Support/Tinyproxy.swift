import Foundation
import Glibc
import SpoolTestSupport

/// Debian's tinyproxy on 127.0.0.1, logging every request it relays: the absolute-form request line for
/// http, the CONNECT for https.
final class Tinyproxy {
    let port: UInt16
    let directory: String
    private let process: Process

    /// The path to tinyproxy, or nil with the reason printed.
    static let binary: String? = {
        for path in ["/usr/bin/tinyproxy", "/usr/sbin/tinyproxy"]
        where FileManager.default.isExecutableFile(atPath: path) { return path }
        print("skipped: the proxy tests need tinyproxy (Debian's tinyproxy); .ci/run installs it")
        return nil
    }()

    /// A proxy that lets CONNECT reach any port, or only `connectPorts`.
    init(connectPorts: [Int] = []) throws {
        guard let binary = Tinyproxy.binary else { throw Skip.missing("tinyproxy") }
        directory = NSTemporaryDirectory() + "spool-tinyproxy-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        port = TestServer.deadPort()
        // No ConnectPort line: CONNECT is allowed to any port, as the test servers' ports are random.
        let ports = connectPorts.map { "ConnectPort \($0)" }.joined(separator: "\n")
        let configuration = """
            Port \(port)
            Listen 127.0.0.1
            Timeout 60
            LogFile "\(directory)/tinyproxy.log"
            LogLevel Connect
            MaxClients 50
            Allow 127.0.0.1
            \(ports)
            """
        try configuration.write(toFile: directory + "/tinyproxy.conf", atomically: true, encoding: .utf8)
        process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["-d", "-c", directory + "/tinyproxy.conf"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        for _ in 0..<200 {
            if Nginx.listening(port) { return }
            usleep(20_000)
        }
        throw Skip.missing("tinyproxy did not start")
    }

    deinit {
        process.stopServer()
        try? FileManager.default.removeItem(atPath: directory)
    }

    var url: String { "http://127.0.0.1:\(port)" }

    /// The log's request lines, as tinyproxy wrote them.
    var log: String { (try? String(contentsOfFile: directory + "/tinyproxy.log", encoding: .utf8)) ?? "" }
}
