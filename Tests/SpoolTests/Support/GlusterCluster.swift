import Foundation
import Glibc

/// A GlusterFS volume on this machine, replica 3 over bricks in local folders, mounted three times: one
/// mount per "host" sharing a spool. Built by hand as Debian's glusterfs-server allows: glusterd with its
/// own working directory and volfile, on 127.0.0.1, bricks named by this machine's host name (Gluster
/// refuses localhost), stat-prefetch off and zero attribute/entry timeouts on the mounts for coherence.
final class GlusterCluster: SharedCluster {
    let directory: String
    let volume: String
    let engine = "GlusterFS"
    var timeouts: String { "ping timeout \(GlusterCluster.pingTimeout) s" }
    private(set) var mounts: [String] = []
    /// The cgroup (v2) the last mount's client runs in when the cluster can be partitioned: packets its
    /// sockets send are dropped by an nftables rule while `partition` holds.
    private(set) var partitionGroup: (path: String, nftPath: String)?
    /// How long a client waits for a brick's answer before calling it gone (Gluster's default is 42 s).
    static let pingTimeout = 5

    /// Why the cluster cannot be built here, or nil.
    static let unavailable: String? = {
        guard ProcessInfo.processInfo.environment["SPOOL_GLUSTER"] == "1" else {
            return "opt-in: set SPOOL_GLUSTER=1 (.ci/run does when it can)"
        }
        guard getuid() == 0 else { return "needs root (glusterd, FUSE mounts)" }
        for tool in ["/usr/sbin/glusterd", "/usr/sbin/gluster", "/usr/sbin/glusterfs", "/usr/bin/unshare"]
        where !FileManager.default.isExecutableFile(atPath: tool) {
            return "needs \(tool) (Debian's glusterfs-server, glusterfs-client, util-linux)"
        }
        guard FileManager.default.fileExists(atPath: "/dev/fuse") else { return "needs /dev/fuse" }
        // Gluster refuses localhost as a brick host: the machine's own name must reach loopback.
        guard let address = gethostbyname(ProcessInfo.processInfo.hostName)?.pointee, address.h_length == 4,
              let first = address.h_addr_list?.pointee?.pointee, UInt8(bitPattern: first) == 127 else {
            return "the host name \(ProcessInfo.processInfo.hostName) does not resolve to a loopback address"
        }
        return nil
    }()

    /// Why the last mount cannot be cut off from the bricks here, or nil.
    static let partitionUnavailable: String? = {
        guard FileManager.default.isExecutableFile(atPath: "/usr/sbin/nft") else {
            return "needs nft (Debian's nftables)"
        }
        guard cgroup2Mount != nil else { return "needs a cgroup2 file system mounted under /sys/fs/cgroup" }
        return nil
    }()

    /// Where cgroup v2 is mounted (`/sys/fs/cgroup`, or `/sys/fs/cgroup/unified` on hybrid systems).
    static let cgroup2Mount: String? = {
        guard let mounts = try? String(contentsOfFile: "/proc/self/mounts", encoding: .utf8) else { return nil }
        for line in mounts.split(separator: "\n") {
            let fields: [Substring] = line.split(separator: " ")
            if fields.count > 2, fields[2] == "cgroup2", fields[1].hasPrefix("/sys/fs/cgroup") {
                return String(fields[1])
            }
        }
        return nil
    }()

    static var available: Bool {
        if let reason = unavailable { print("skipping the shared-spool test: \(reason)") }
        return unavailable == nil
    }

    /// A new cluster, or nil with the reason printed when this machine cannot build one.
    static func build(partitionable: Bool = false, options: [(String, String)] = []) -> GlusterCluster? {
        if partitionable, let reason = partitionUnavailable {
            print("skipping a shared-spool test: \(reason)")
            return nil
        }
        do { return try GlusterCluster(partitionable: partitionable, options: options) } catch {
            print("skipping a shared-spool test: \(error)")
            return nil
        }
    }

    /// `options` are volume options (`gluster volume set`) beyond the recipe of spool(5).
    init(partitionable: Bool = false, options: [(String, String)] = []) throws {
        directory = "/tmp/spool-gluster-\(getpid())"
        volume = "spool\(getpid())"
        let host = ProcessInfo.processInfo.hostName
        try? FileManager.default.removeItem(atPath: directory)
        for sub in ["wd", "b1", "b2", "b3", "m1", "m2", "m3", "log"] {
            try FileManager.default.createDirectory(atPath: "\(directory)/\(sub)", withIntermediateDirectories: true)
        }
        for sub in ["groups", "hooks"] where FileManager.default.fileExists(atPath: "/var/lib/glusterd/\(sub)") {
            try FileManager.default.copyItem(atPath: "/var/lib/glusterd/\(sub)", toPath: "\(directory)/wd/\(sub)")
        }
        let configuration = """
            volume management
                type mgmt/glusterd
                option working-directory \(directory)/wd
                option transport-type socket
                option transport.socket.bind-address 127.0.0.1
                option transport.socket.listen-port 24007
                option ping-timeout 0
                option event-threads 1
                option base-port 49152
                option max-port 49300
            end-volume
            """
        try configuration.write(toFile: directory + "/glusterd.vol", atomically: true, encoding: .utf8)
        try shell(
            "glusterd -f \(directory)/glusterd.vol --log-file=\(directory)/log/glusterd.log -p "
                + "\(directory)/glusterd.pid"
        )
        // glusterd takes a moment to listen: the volume is made as soon as it answers.
        let created = eventually(within: 10, every: 0.2) {
            (try? shell(
                "gluster --mode=script volume create \(volume) replica 3 "
                    + (1...3).map { "\(host):\(directory)/b\($0)" }.joined(separator: " ") + " force")) != nil
        }
        guard created else { throw Skip.missing("gluster volume create failed; see \(directory)/log") }
        try shell("gluster --mode=script volume set \(volume) performance.stat-prefetch off")
        // Both ends notice a silent peer within seconds: the client by its ping, a brick (which then drops
        // the client's locks) by keepalive and TCP_USER_TIMEOUT.
        for (option, value) in [
            ("network.ping-timeout", GlusterCluster.pingTimeout),
            ("server.tcp-user-timeout", GlusterCluster.pingTimeout),
            ("server.keepalive-time", 2), ("server.keepalive-interval", 1), ("server.keepalive-count", 3)
        ] {
            try shell("gluster --mode=script volume set \(volume) \(option) \(value)")
        }
        for (option, value) in options { try shell("gluster --mode=script volume set \(volume) \(option) \(value)") }
        if partitionable, let root = GlusterCluster.cgroup2Mount {
            let name = "spool-partition-\(getpid())"
            try FileManager.default.createDirectory(atPath: "\(root)/\(name)", withIntermediateDirectories: false)
            partitionGroup = ("\(root)/\(name)", String((root + "/" + name).dropFirst("/sys/fs/cgroup/".count)))
        }
        try shell("gluster --mode=script volume start \(volume)")
        for i in 1...3 {
            let mount = "\(directory)/m\(i)"
            let client =
                "glusterfs --volfile-server=\(host) --volfile-id=\(volume) --attribute-timeout=0 --entry-timeout=0 "
                + "--negative-timeout=0 --log-file=\(directory)/log/m\(i).log \(mount)"
            // The client forks into the background: started by a shell moved into the cgroup, it stays in it.
            if i == 3, let group = partitionGroup {
                try shell("/bin/sh -c 'echo $$ >\(group.path)/cgroup.procs && exec \(client)'")
            } else {
                try shell(client)
            }
            mounts.append(mount)
        }
        guard eventually(within: 5, { FileManager.default.fileExists(atPath: self.mounts[0] + "/.") }) else {
            throw Skip.missing("the first mount did not come up; see \(directory)/log")
        }
    }

    func partition() throws { try partition(brick: nil) }

    /// Cuts the last mount off from glusterd and the bricks, the way a partition does: nothing it sends
    /// arrives, and nothing tells it so. With `brick` (1...3), from that brick only.
    func partition(brick: Int?) throws {
        guard let group = partitionGroup else { throw Skip.missing("the cluster was not built partitionable") }
        let port = try brick.map { "tcp dport \(try brickPort($0)) " } ?? ""
        // `level` counts from the kernel's root, which a cgroup namespace hides: match the cgroup at any depth.
        let rules = (1...8).map {
            "nft add rule inet \(volume) out socket cgroupv2 level \($0) '\"\(group.nftPath)\"' \(port)drop"
        }
        try shell(
            "nft add table inet \(volume) && nft add chain inet \(volume) out '{ type filter hook output priority 0; "
                + "}' && "
                + rules.joined(separator: " && "))
    }

    /// The TCP port brick `brick` (1...3) listens on, from `gluster volume status --xml`.
    func brickPort(_ brick: Int) throws -> Int {
        let status = try Command.run("/usr/sbin/gluster", ["--mode=script", "volume", "status", volume, "--xml"])
        let nodes = status.stdout.components(separatedBy: "<node>").filter { $0.contains("<path>\(directory)/b\(brick)</path>") }
        guard let node = nodes.first, let start = node.range(of: "<port>"), let end = node.range(of: "</port>"),
            let port = Int(node[start.upperBound..<end.lowerBound])
        else { throw Skip.missing("no port for brick \(brick) in `gluster volume status --xml`: \(status.stdout)") }
        return port
    }

    /// Ends the partition.
    func heal() {
        _ = try? shell("nft delete table inet \(volume)")
    }

    deinit {
        heal()
        for mount in mounts { _ = try? shell("umount -l \(mount)") }
        _ = try? shell(
            "gluster --mode=script volume stop \(volume) force; gluster --mode=script volume delete \(volume)")
        _ = try? shell("kill $(cat \(directory)/glusterd.pid); pkill -f 'glusterfsd.*\(volume)'")
        // A cgroup is removed once its last process (the cut-off client) has exited.
        if let group = partitionGroup {
            _ = eventually(within: 5) { rmdir(group.path) == 0 || errno == ENOENT }
        }
        _ = try? FileManager.default.removeItem(atPath: directory)
    }

    /// Runs a command with system(3), its output to the cluster's log: Gluster's commands leave daemons
    /// behind, which Foundation's Process does not always see past.
    func shell(_ script: String) throws {
        let status = system("(\(script)) </dev/null >>\(directory)/log/commands.log 2>&1")
        guard status == 0 else {
            throw Skip.missing("`\(script)` failed (status \(status)); see \(directory)/log/commands.log")
        }
    }
}
