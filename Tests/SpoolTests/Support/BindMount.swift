import Foundation
import Glibc

/// A FUSE file system from Debian's bindfs, mirroring a folder: a real file system that answers EINVAL to
/// `renameat2(RENAME_NOREPLACE)`, as GlusterFS and many FUSE file systems do, and whose daemon a test can
/// kill so that the mount goes away under a running worker (ENOTCONN).
final class BindMount {
    /// Why bindfs cannot be used here, or nil; probed once.
    static let unavailable: String? = {
        guard geteuid() == 0 else { return "not root, so no FUSE file system can be mounted" }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/bindfs") else {
            return "bindfs is not installed (apt-get install bindfs; .ci/run does)"
        }
        guard access("/dev/fuse", R_OK | W_OK) == 0 else {
            return "/dev/fuse is missing or not usable in this container"
        }
        let base = NSTemporaryDirectory() + "spool-bindfs-probe-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: base) }
        do {
            let mount = try BindMount(base: base)
            mount.stop()
            return nil
        } catch {
            return "bindfs did not mount here: \(error)"
        }
    }()

    /// Whether bindfs works here, for `.enabled(if:)`; prints the reason when it does not.
    static var available: Bool {
        if let reason = unavailable { print("skipping a FUSE test: \(reason)") }
        return unavailable == nil
    }

    /// The folder that holds the files.
    let source: String
    /// Where the FUSE file system shows them.
    let path: String
    let daemon: Process

    /// Mounts `base/source` on `base/mount`, creating both.
    init(base: String) throws {
        source = base + "/source"
        path = base + "/mount"
        try FileManager.default.createDirectory(atPath: source, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: "/usr/bin/bindfs")
        // Zero attribute and entry timeouts, as a shared spool on GlusterFS needs: every process sees a
        // rename or link at once.
        daemon.arguments = ["-f", "-o", "attr_timeout=0,entry_timeout=0,negative_timeout=0", source, path]
        daemon.standardOutput = FileHandle.nullDevice
        daemon.standardError = FileHandle.nullDevice
        try daemon.run()
        let deadline = Date().addingTimeInterval(10)
        while !BindMount.isMounted(path) {
            guard daemon.isRunning, Date() < deadline else {
                stop()
                throw POSIXError(.ENODEV)
            }
            usleep(20_000)
        }
    }

    /// Kills the daemon with SIGKILL: from then on every access to the mount fails with ENOTCONN.
    func killDaemon() {
        if daemon.isRunning { kill(daemon.processIdentifier, SIGKILL) }
        daemon.waitUntilExit()
    }

    var stopped = false

    /// Unmounts (lazily, so that a dead daemon or an open descriptor never blocks it), once: a later mount
    /// on the same path is not this one's.
    func stop() {
        guard !stopped else { return }
        stopped = true
        _ = Mounts.run(["umount", "-l", path])
        killDaemon()
    }

    deinit { stop() }

    static func isMounted(_ path: String) -> Bool {
        let mounts = (try? String(contentsOfFile: "/proc/self/mounts", encoding: .utf8)) ?? ""
        return mounts.split(separator: "\n").contains {
            $0.split(separator: " ").dropFirst().first.map(String.init) == path
        }
    }
}
