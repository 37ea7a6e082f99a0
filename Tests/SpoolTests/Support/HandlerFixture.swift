import Foundation
import Glibc

/// A handler directory the admin owns, outside the spool, with shell scripts written into it, and a place
/// for the scripts to leave what they saw.
final class HandlerFixture {
    let directory: String
    /// The handler directory itself.
    let handlers: String
    /// Where scripts write logs and counters (the handlers run in `/`, so paths are absolute).
    let work: String

    init() {
        directory = makeTemporaryDirectory("spool-handlers")
        handlers = directory + "/handlers"
        work = directory + "/work"
        mkdir(handlers, 0o755)
        mkdir(work, 0o755)
        chmod(directory, 0o755)
    }

    deinit { _ = try? FileManager.default.removeItem(atPath: directory) }

    /// Writes handler `name` as a POSIX sh script with `mode`; `WORK` in the body stands for `work`.
    @discardableResult
    func script(_ name: String, _ body: String, mode: mode_t = 0o755) -> String {
        let path = "\(handlers)/\(name)"
        let text = "#!/bin/sh\n" + body.replacingOccurrences(of: "WORK", with: work) + "\n"
        writeExecutable(path, text, mode: mode)
        return path
    }

    /// The lines a script appended to `WORK/name`.
    func lines(_ name: String) -> [String] {
        ((try? String(contentsOfFile: "\(work)/\(name)", encoding: .utf8)) ?? "").split(separator: "\n").map(
            String.init)
    }

    /// Whether `WORK/name` exists.
    func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: "\(work)/\(name)") }

    /// spool-send's options for this directory.
    var options: [String] { ["--handler-dir", handlers] }
}

/// Whether process `pid` has gone: no such process, or a zombie that nothing has reaped yet.
func processIsGone(_ pid: Int32) -> Bool {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return true }
    guard let close = stat.lastIndex(of: ")") else { return true }
    return stat[stat.index(close, offsetBy: 2)] == "Z"
}
