import Foundation
import Glibc
import SpoolTestSupport
import Testing
@testable import SpoolQueue

extension SharedSpoolTests {
    /// A drop that one replica missed (its host was cut off from that replica alone) goes before a later write
    /// of the same key that every replica has, sent by a watcher on another host whose client reads that
    /// replica: each listing looks the folder up by name (`Spool+Listing.swift`), which makes the client ask
    /// every replica which is current. Through the descriptor held since the watcher started, the listing
    /// came from the replica that missed it, and the second write went first (CI, stop 37).
    @Test(
        .enabled(
            if: GlusterCluster.partitionUnavailable == nil,
            "needs nftables to cut one host off: \(GlusterCluster.partitionUnavailable ?? "")"))
    func aDropOneReplicaMissedStillGoesFirst() throws {
        // Every client reads brick 1 while it thinks it current: the watcher's listings come from it. No heal
        // copies the missed write to brick 1 meanwhile, neither the daemon nor a client's lookup.
        let options = [
            ("cluster.read-subvolume-index", "0"), ("cluster.self-heal-daemon", "off"),
            ("cluster.entry-self-heal", "off"),
        ]
        let cluster = try #require(GlusterCluster.build(partitionable: true, options: options), Self.unbuilt)
        let hosts = SharedSpoolScenario(cluster: cluster)
        let shared = cluster.mounts.map { $0 + "/spool" }
        _ = try Spool(path: shared[0])
        let server = try TestServer { _ in .respond(204, [:], "") }
        defer { server.stop() }
        let (watcher, _, errors) = try hosts.onHostWithOutput(
            "host-a", "spool-send", ["--spool", shared[0], "--watch", "--poll", "1", "-v"])
        let output = OutputWatcher(errors)
        #expect(output.wait(for: "watching \(shared[0])/new"), "the watcher started: \(output.text)")

        try cluster.partition(brick: 1)
        let enqueue = { (body: String) in
            try Command.run(
                "spool-enqueue", ["--spool", shared[2], "PUT", server.baseURL + "/replica/k", "--body", body])
        }
        let first = try enqueue("1")
        #expect(first.status == 0, "the first write was taken by two replicas of three: \(first.stderr)")
        let onBrick1 = hosts.names(cluster.directory + "/b1/spool", "new")
        #expect(onBrick1.isEmpty, "brick 1 missed the first write: \(onBrick1)")
        let onBrick2 = ["new", "cur"].flatMap { hosts.names(cluster.directory + "/b2/spool", $0) }
        #expect(!onBrick2.isEmpty || !server.requests.isEmpty, "brick 2 has the first write, or it was sent")

        // Healed: host-c's client writes to brick 1 again once a probe made through it shows there.
        cluster.heal()
        var probe = 0
        let reconnected = eventually(within: 60, every: 0.25) {
            probe += 1
            FileManager.default.createFile(atPath: "\(cluster.mounts[2])/probe\(probe)", contents: nil)
            return FileManager.default.fileExists(atPath: "\(cluster.directory)/b1/probe\(probe)")
        }
        #expect(reconnected, "host-c's client reached brick 1 again")
        // With listings by name the watcher may have sent the first already; either way the order must hold.
        let sentBeforeTheSecond = !server.requests.isEmpty
        let second = try enqueue("2")
        #expect(second.status == 0, "\(second.stderr)")

        let keys = { Set(server.requests.compactMap { $0.header("Idempotency-Key") }) }
        _ = eventually(within: 30) { keys().count >= 2 }
        watcher.interrupt()
        watcher.waitUntilExit()
        let bodies = server.requests.map { String(decoding: $0.body, as: UTF8.self) }
        #expect(bodies == ["1", "2"], "both writes applied, in order: \(bodies); the watcher said: \(output.text)")
        print(
            "shared spool: a write brick 1 missed was sent "
                + (sentBeforeTheSecond ? "before the second was dropped" : "before the second, both waiting"))
    }
}
