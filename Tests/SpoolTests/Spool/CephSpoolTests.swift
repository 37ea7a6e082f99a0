import Foundation
import Glibc
import Testing

/// One spool on CephFS (ceph-fuse, as Debian ships it), three "hosts" producing and sending at once; one
/// killed with claims in cur/; one cut off from the cluster (`SharedSpoolScenario`). Opt-in: SPOOL_CEPH=1.
@Suite(.enabled(if: CephCluster.unavailable == nil, "\(CephCluster.unavailable ?? "")"), .serialized)
struct CephSpoolTests {
    static let unbuilt: Comment = "the CephFS file system could not be made (its reason is printed above)"

    @Test func threeHostsShareOneSpool() throws {
        let cluster = try #require(CephCluster.build(), Self.unbuilt)
        let seconds = String(format: "%.1f", cluster.startSeconds)
        print("CephFS: monitor, OSD, MDS and three ceph-fuse mounts ready in \(seconds) s")
        try SharedSpoolScenario(cluster: cluster).threeHostsShareOneSpool()
    }

    @Test func aDeadHostsClaimsAreReturnedAfterTheLease() throws {
        let cluster = try #require(CephCluster.build(), Self.unbuilt)
        try SharedSpoolScenario(cluster: cluster).aDeadHostsClaimsAreReturnedAfterTheLease()
    }

    /// A cut-off client's calls wait; after 30 s the MDS evicts and blocklists it (ESHUTDOWN from then on) and
    /// the others go on; healed, the host mounts again (its old client gone, what still holds the old mount
    /// gets ENOTCONN) and starts its watcher again.
    @Test func aPartitionedHostClaimsNothingAndTheOthersTakeOver() throws {
        let cluster = try #require(CephCluster.build(), Self.unbuilt)
        try SharedSpoolScenario(cluster: cluster).aPartitionedHostClaimsNothingAndTheOthersTakeOver(
            rejoin: .newMount(errno: "ENOTCONN"))
    }

    /// A producer of a shared spool on CephFS: syncfs(2) does not reach ceph-fuse's servers, so its drop is
    /// fsynced again after its arrival in new/ (ceph-fuse refuses RENAME_NOREPLACE: a link), which makes the
    /// client wait until the MDS has the rename safe, as strace shows.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/strace"), "needs strace"))
    func aProducersDropIsFlushedAfterItArrives() throws {
        let cluster = try #require(CephCluster.build(), Self.unbuilt)
        let shared = try SharedSpool(policy: "* origin http://127.0.0.1:9\n", in: cluster.mounts[0])
        let trace = cluster.directory + ".trace"
        defer { unlink(trace) }
        let traced = try Command.run("/usr/bin/strace", [
            "-f", "-qq", "-y", "-o", trace, "-e", "trace=fsync,fdatasync,syncfs,rename,renameat,renameat2,link,linkat",
            "/usr/bin/setpriv", "--reuid=4242", "--regid=65534", "--clear-groups", Command.path("spool-enqueue"),
            "--spool", shared.spool.path, "PUT", "http://127.0.0.1:9/one",
        ], environment: ["SPOOL_CONFIG": shared.config].merging(Sanitizer.withoutLeakCheck) { $1 })
        #expect(traced.status == 0, "\(traced.stderr)")
        let calls = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
            .filter { !$0.contains("resumed") && !$0.contains("= -1") }
        let arrival = try #require(calls.lastIndex { $0.contains("link") && $0.contains("/spool/new") }, "\(calls)")
        #expect(calls[(arrival + 1)...].contains { $0.contains("fsync(") }, "flushed after it arrived: \(calls)")
    }
}
