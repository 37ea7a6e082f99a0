import Foundation
import SpoolTestSupport

/// A test server of Tests/Support written in Python, started with `arguments` (after `python3 SCRIPT`, or
/// wrapped by `prefix`, e.g. `ip netns exec NAME`): it prints its port on standard output and writes its log
/// to standard error, which is gathered in `log` as it arrives.
struct PythonServer {
    let process: Process
    let port: UInt16
    let log = LogBuffer()

    init(_ script: String, _ arguments: [String], prefix: [String] = []) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = prefix + ["python3", Repository.root + "/Tests/Support/" + script] + arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let line = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
        guard let port = UInt16(line.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw Skip.missing("\(script) did not start")
        }
        self.port = port
        err.fileHandleForReading.readabilityHandler = { [log] handle in
            let data = handle.availableData
            log.text.withLock { $0 += String(decoding: data, as: UTF8.self) }
        }
    }
}
