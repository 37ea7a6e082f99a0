import Foundation
import Glibc

/// A CephFS file system on this machine, made by `Tests/Support/cephfs.sh` from Debian's packages: one
/// monitor, one OSD on a memory store, one MDS, mounted three times by ceph-fuse, one client per "host".
/// Cutting the third client off leaves its calls waiting; the MDS evicts and blocklists it once another
/// client waits 5 s for what it holds, or after 30 s (`session_autoclose`, Ceph's least), and the others
/// go on. `heal` ends the partition and gives the third
/// mount a new client, as an administrator must: a blocklisted client answers ESHUTDOWN for good.
final class CephCluster: SharedCluster {
    let directory: String
    let engine = "CephFS"
    let timeouts = "cap revoke eviction 5 s, session autoclose 30 s"
    var mounts: [String] { (1...3).map { "\(directory)/m\($0)" } }

    static let script = Repository.root + "/Tests/Support/cephfs.sh"

    /// Why the file system cannot be made here, or nil.
    static let unavailable: String? = {
        guard ProcessInfo.processInfo.environment["SPOOL_CEPH"] == "1" else {
            return "opt-in: set SPOOL_CEPH=1 (.ci/run does when it can)"
        }
        guard getuid() == 0 else { return "needs root (the daemons, FUSE mounts, a cgroup)" }
        for tool in ["/usr/bin/ceph-mon", "/usr/bin/ceph-osd", "/usr/bin/ceph-mds", "/usr/bin/ceph-fuse",
                     "/usr/bin/ceph", "/usr/sbin/nft", "/usr/bin/unshare"]
        where !FileManager.default.isExecutableFile(atPath: tool) {
            return "needs \(tool) (Debian's ceph-mon, ceph-osd, ceph-mds, ceph-fuse, ceph-common, nftables)"
        }
        guard FileManager.default.fileExists(atPath: "/dev/fuse") else { return "needs /dev/fuse" }
        guard GlusterCluster.cgroup2Mount != nil else { return "needs cgroup2 under /sys/fs/cgroup" }
        return nil
    }()

    /// A new file system, or nil with the reason printed. One a killed test run left behind (its process
    /// gone) is stopped first: its daemons and mounts would outlive it.
    static func build() -> CephCluster? {
        let left = (try? FileManager.default.contentsOfDirectory(atPath: "/tmp")) ?? []
        for name in left where name.hasPrefix("spool-ceph-") && !name.hasSuffix(".log") {
            let pid = name.dropFirst("spool-ceph-".count).split(separator: "-").first.flatMap { Int32($0) }
            if let pid, pid != getpid(), kill(pid, 0) != 0 {
                _ = system("/bin/bash \(script) stop /tmp/\(name) </dev/null >/dev/null 2>&1")
                unlink("/tmp/\(name).log")
            }
        }
        do { return try CephCluster() } catch {
            print("skipping a CephFS test: \(error)")
            return nil
        }
    }

    /// How long the last start took, in seconds.
    private(set) var startSeconds = 0.0

    init() throws {
        directory = "/tmp/spool-ceph-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let started = Date()
        try run("start")
        startSeconds = Date().timeIntervalSince(started)
    }

    func partition() throws { try run("cut") }

    /// Ends the partition and mounts the third host again: its evicted client is fenced for good.
    func heal() {
        try? run("heal")
        try? run("remount")
    }

    deinit {
        _ = try? run("stop")
        unlink(directory + ".log")
    }

    /// Runs `cephfs.sh command DIR` with system(3), its output to `DIR.log`: the daemons it starts keep
    /// whatever they inherit, and Foundation's Process would wait for them to close its pipes.
    private func run(_ command: String) throws {
        let status = system(
            "/bin/bash \(CephCluster.script) \(command) \(directory) </dev/null >>\(directory).log 2>&1")
        guard status == 0 else {
            let log = (try? String(contentsOfFile: directory + ".log", encoding: .utf8)) ?? ""
            throw Skip.missing("cephfs.sh \(command) failed (\(status)): \(log.suffix(2000))")
        }
    }
}
