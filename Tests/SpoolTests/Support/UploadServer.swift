import Foundation
import Glibc
import SpoolTestSupport

/// Tests/Support/uploads.py on 127.0.0.1: a server that hashes each request body as it arrives, keeps none of
/// it, and logs when each body starts and ends; a query's `gate` file holds the body after its first 64 KiB
/// until the gate exists, its `rate` paces the reading, its `ifmatch` answers 412 to another If-Match.
final class UploadServer {
    let baseURL: String
    private let server: PythonServer
    private var log: LogBuffer { server.log }

    /// One line of the server's log.
    struct Event {
        let event: String
        let method: String
        let path: String
        let key: String?
        let contentType: String?
        let length: Int64
        let received: Int64?
        let sha256: String?
    }

    /// The server, over TLS with the test CA's certificate when `tls`.
    init(tls: Bool = false) throws {
        var arguments = ["127.0.0.1"]
        if tls {
            guard let certificates = TestCertificates.shared else { throw Skip.missing("openssl") }
            arguments += [certificates.serverCertificate, certificates.serverKey]
        }
        server = try PythonServer("uploads.py", arguments)
        baseURL = "\(tls ? "https" : "http")://127.0.0.1:\(server.port)"
    }

    deinit {
        server.process.stopServer()
    }

    /// What the server logged so far, in order.
    var events: [Event] {
        log.text.withLock { $0 }.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let event = object["event"] as? String, let method = object["method"] as? String,
                  let path = object["path"] as? String, let length = (object["length"] as? NSNumber)?.int64Value
            else { return nil }
            return Event(
                event: event, method: method, path: path, key: object["key"] as? String,
                contentType: object["ctype"] as? String, length: length,
                received: (object["received"] as? NSNumber)?.int64Value, sha256: object["sha256"] as? String)
        }
    }

    /// The bodies that ended, in order.
    var ended: [Event] { events.filter { $0.event == "end" } }

    /// Waits until `condition` holds of the log, at most `seconds`.
    func wait(seconds: Double = 10, until condition: ([Event]) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition(events) { return true }
            usleep(20_000)
        }
        return condition(events)
    }
}
