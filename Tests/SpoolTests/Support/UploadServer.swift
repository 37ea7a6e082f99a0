import Foundation
import Glibc
import SpoolTestSupport

/// Tests/Support/uploads.py on 127.0.0.1: a server that hashes each request body as it arrives, keeps none of
/// it, and logs when each body starts and ends; a path with `slow` and a `gate` file holds the body after its
/// first 64 KiB until the gate exists.
final class UploadServer {
    let baseURL: String
    private let process: Process
    private let log = LogBuffer()

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
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        var arguments = ["python3", Repository.root + "/Tests/Support/uploads.py", "127.0.0.1"]
        if tls {
            guard let certificates = TestCertificates.shared else { throw Skip.missing("openssl") }
            arguments += [certificates.serverCertificate, certificates.serverKey]
        }
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let line = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
        guard let port = UInt16(line.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw Skip.missing("uploads.py did not start")
        }
        baseURL = "\(tls ? "https" : "http")://127.0.0.1:\(port)"
        err.fileHandleForReading.readabilityHandler = { [log] handle in
            let data = handle.availableData
            log.text.withLock { $0 += String(decoding: data, as: UTF8.self) }
        }
    }

    deinit {
        process.stopServer()
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
