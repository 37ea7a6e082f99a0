import Foundation
import Glibc
import Testing

/// `Tests/Support/lazyfs.py`, a FUSE file system that keeps only what was flushed (after LazyFS), mounted on
/// a temporary folder for a test: what it was asked to flush, and what a power cut would leave.
final class LazyMount {
    static let python = "/usr/bin/python3"

    /// Why the lazy file system cannot be mounted here, or nil.
    static let unavailable: String? = {
        guard getuid() == 0 else { return "needs root (a FUSE mount other users write to)" }
        guard FileManager.default.fileExists(atPath: "/dev/fuse") else { return "needs /dev/fuse" }
        guard FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/fusepy.py") else {
            return "needs Debian's python3-fusepy (.ci/run installs it)"
        }
        return nil
    }()

    let directory = makeTemporaryDirectory("spool-lazyfs")
    var mount: String { directory + "/mount" }
    var log: String { directory + "/log" }
    private let process = Process()

    init() throws {
        for folder in ["backing", "mount"] {
            try FileManager.default.createDirectory(
                atPath: directory + "/" + folder, withIntermediateDirectories: false)
        }
        chmod(directory, 0o755)
        process.executableURL = URL(fileURLWithPath: LazyMount.python)
        process.arguments = [Repository.root + "/Tests/Support/lazyfs.py", directory + "/backing", mount, log]
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        let mounted = eventually(within: 10) {
            ((try? String(contentsOfFile: "/proc/self/mounts", encoding: .utf8)) ?? "").contains(" \(self.mount) ")
        }
        try #require(mounted, "lazyfs.py mounted \(mount)")
        chmod(mount, 0o755)
    }

    deinit {
        _ = try? Command.run("/bin/umount", ["-l", mount])
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The flushes and renames the file system received, in order, paths from the mount's root.
    var received: [String] {
        ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// What a power cut now would leave of each file: path (from the mount's root) to whether it is whole.
    func cut() -> [String: Bool] {
        _ = FileManager.default.fileExists(atPath: mount + "/.lazyfs-cut")
        let text = (try? String(contentsOfFile: log + ".cut", encoding: .utf8)) ?? ""
        return Dictionary(text.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ", maxSplits: 1)
            return parts.count == 2 ? (String(parts[1]), parts[0] == "whole") : nil
        }, uniquingKeysWith: { $1 })
    }
}
