import Foundation
import Glibc

/// Small file systems for fault tests: tmpfs mounts, which need root and mount rights.
enum Mounts {
    /// Why mounting is impossible here, or nil when it works; probed once.
    static let unavailable: String? = {
        guard geteuid() == 0 else { return "not root, so no tmpfs can be mounted" }
        let dir = NSTemporaryDirectory() + "spool-mount-probe-\(getpid())"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let result = run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", dir])
        if result != 0 { return "mount -t tmpfs failed here (status \(result)); no container mount rights" }
        _ = run(["umount", dir])
        return nil
    }()

    /// Whether tmpfs mounts work here, for `.enabled(if:)`.
    static var available: Bool {
        if let reason = unavailable { print("skipping a fault test: \(reason)") }
        return unavailable == nil
    }

    /// Mounts a tmpfs of `size` (e.g. "256k") on `path`, creating it.
    static func tmpfs(_ path: String, size: String) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let status = run(["mount", "-t", "tmpfs", "-o", "size=\(size),mode=700", "tmpfs", path])
        if status != 0 { throw POSIXError(.EPERM) }
    }

    /// Makes the mount at `path` read-only (or read-write again).
    static func remount(_ path: String, readOnly: Bool) {
        _ = run(["mount", "-o", "remount,\(readOnly ? "ro" : "rw")", path])
    }

    /// Unmounts `path`, lazily so that a test's leftovers never block it.
    static func unmount(_ path: String) {
        _ = run(["umount", "-l", path])
    }

    static func run(_ arguments: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }
}
