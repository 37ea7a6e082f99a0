import Foundation
import Glibc
import SpoolTestSupport
import Testing
@testable import SpoolQueue

/// What a spool shared by three hosts must do on any file system that offers it (GlusterFS, CephFS): run by
/// each engine's suite on its own cluster. The three "hosts" are this machine's processes, each with its
/// own host name (`unshare -u`) and its own mount, that is its own client of the cluster.
struct SharedSpoolScenario {
    /// The file system the spool is shared on.
    let cluster: any SharedCluster

    static let hosts = ["host-a", "host-b", "host-c"]

    /// A program run as if on `host`: its own UTS namespace, so the claims it makes carry that name.
    func onHost(_ host: String, _ program: String, _ arguments: [String]) throws -> Process {
        try onHostWithOutput(host, program, arguments).0
    }

    /// The same, with its standard output and error.
    func onHostWithOutput(_ host: String, _ program: String, _ arguments: [String]) throws -> (Process, Pipe, Pipe) {
        try Command.start(
            "/usr/bin/unshare",
            ["-u", "/bin/sh", "-c", "hostname \(host) && exec \"$0\" \"$@\"", Command.path(program)] + arguments)
    }

    /// The names in one folder of a spool, without the dot files.
    func names(_ spool: String, _ folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "\(spool)/\(folder)")) ?? ["?"]).filter {
            !$0.hasPrefix(".")
        }
    }

    /// Three producers and three `--watch` workers on `spools` (one path per host); returns seconds until
    /// the server has every write.
    func deliver(_ spools: [String], _ server: TestServer, perHost: Int) throws -> Double {
        let started = Date()
        let watchers = try Self.hosts.indices.map {
            try onHost(Self.hosts[$0], "spool-send", ["--spool", spools[$0], "--watch"])
        }
        let producers = try Self.hosts.indices.map { i in
            try Command.start("/usr/bin/unshare", ["-u", "/bin/sh", "-c", """
                hostname \(Self.hosts[i]) && for n in $(seq 1 \(perHost)); do
                  "$0" --spool '\(spools[i])' PUT '\(server.baseURL)/\(Self.hosts[i])/k'$((n % 5)) --body "$n" >/dev/null || exit 1
                done
                """, Command.path("spool-enqueue")]).0
        }
        for producer in producers { producer.waitUntilExit() }
        #expect(producers.allSatisfy { $0.terminationStatus == 0 })
        let total = perHost * Self.hosts.count
        while server.requests.count < total, Date().timeIntervalSince(started) < 180 { usleep(100_000) }
        let elapsed = Date().timeIntervalSince(started)
        for watcher in watchers { watcher.interrupt() }
        for watcher in watchers { watcher.waitUntilExit() }
        return elapsed
    }

    /// Every write once, in order per key, nothing left behind.
    func checkDelivered(_ server: TestServer, _ spool: String, total: Int) {
        let requests = server.requests
        #expect(requests.count == total)
        #expect(Set(requests.compactMap { $0.header("Idempotency-Key") }).count == total, "each key once")
        for path in Set(requests.map(\.path)) {
            let sequence = requests.filter { $0.path == path }.compactMap {
                Int(String(decoding: $0.body, as: UTF8.self))
            }
            #expect(sequence == sequence.sorted(), "\(path) in order: \(sequence)")
        }
        for folder in ["new", "cur", "failed"] {
            #expect(
                ((try? FileManager.default.contentsOfDirectory(atPath: "\(spool)/\(folder)")) ?? ["?"]).filter {
                    !$0.hasPrefix(".")
                }.isEmpty, "\(folder)")
        }
    }

    /// Three hosts produce and send at once, and every write is delivered once, in order per key; drops by a
    /// host with no watcher are found by the others' poll (inotify sees no other client's writes); the
    /// throughput against a local disk's.
    func threeHostsShareOneSpool() throws {
        let shared = cluster.mounts.map { $0 + "/spool" }
        _ = try Spool(path: shared[0])
        let server = try TestServer { _ in .respond(204, [:], "") }
        defer { server.stop() }
        let perHost = 40
        let onShared = try deliver(shared, server, perHost: perHost)
        checkDelivered(server, shared[0], total: perHost * 3)

        // Drops by a host with no watcher: the others see no inotify event for them, only their poll.
        let started = try [0, 1].map {
            try onHostWithOutput(Self.hosts[$0], "spool-send", ["--spool", shared[$0], "--watch", "-v"])
        }
        let watchers = started.map(\.0)
        for (n, (_, _, err)) in started.enumerated() {
            let output = OutputWatcher(err)
            #expect(output.wait(for: "watching \(shared[n])/new"), "watcher \(n) said it is watching: \(output.text)")
        }
        let dropped = Date()
        for n in 1...10 {
            let result = try Command.run(
                "spool-enqueue",
                ["--spool", shared[2], "PUT", server.baseURL + "/unwatched/k\(n % 2)", "--body", "\(n)"])
            #expect(result.status == 0)
        }
        while server.requests.count < perHost * 3 + 10, Date().timeIntervalSince(dropped) < 30 { usleep(100_000) }
        let found = Date().timeIntervalSince(dropped)
        for watcher in watchers { watcher.interrupt() }
        for watcher in watchers { watcher.waitUntilExit() }
        checkDelivered(server, shared[0], total: perHost * 3 + 10)
        print(
            "\(cluster.engine): 10 drops on an unwatched host delivered by the others' 2 s poll within "
                + "\(String(format: "%.1f", found)) s"
        )

        let local = TemporarySpool()
        let baseline = try TestServer { _ in .respond(204, [:], "") }
        defer { baseline.stop() }
        let onLocal = try deliver(Array(repeating: local.path, count: 3), baseline, perHost: perHost)
        checkDelivered(baseline, local.path, total: perHost * 3)
        print(
            "\(cluster.engine): \(perHost * 3) operations from 3 hosts in "
                + "\(String(format: "%.1f", onShared)) s on \(cluster.engine) "
                + "(\(String(format: "%.1f", Double(perHost * 3) / onShared))/s), "
                    + "\(String(format: "%.1f", onLocal)) s on the local disk "
                + "(\(String(format: "%.1f", Double(perHost * 3) / onLocal))/s)")
    }

    /// A host killed outright with four claims in cur/: another host returns and sends them once the lease
    /// is over, with the same Idempotency-Key.
    func aDeadHostsClaimsAreReturnedAfterTheLease() throws {
        let shared = cluster.mounts.map { $0 + "/spool" }
        _ = try Spool(path: shared[0])
        let server = try TestServer { _ in .delayed(3, 204) }
        defer { server.stop() }
        for i in 0..<4 {
            let result = try Command.run(
                "spool-enqueue", ["--spool", shared[0], "PUT", server.baseURL + "/slow/\(i)", "--body", "\(i)"])
            #expect(result.status == 0)
        }
        let doomed = try onHost(
            "host-a", "spool-send", ["--spool", shared[0], "--once", "--concurrency", "4", "--timeout", "10"])
        let cur = shared[1] + "/cur"
        for _ in 0..<100 where ((try? FileManager.default.contentsOfDirectory(atPath: cur)) ?? []).count < 4 {
            usleep(50_000)
        }
        kill(doomed.processIdentifier, SIGKILL)
        doomed.waitUntilExit()
        let killed = Date()
        let claims = (try? FileManager.default.contentsOfDirectory(atPath: cur)) ?? []
        #expect(claims.count == 4 && claims.allSatisfy { $0.contains("@host-a,") }, "\(claims)")
        var returned: Double?
        while Date().timeIntervalSince(killed) < 60 {
            let result = try Command.run(
                "/usr/bin/unshare",
                [
                    "-u", "/bin/sh", "-c", "hostname host-b && exec \"$0\" \"$@\"", Command.path("spool-send"),
                    "--spool", shared[2], "--once", "--concurrency", "4", "--timeout", "10", "--lease", "12"
                ])
            #expect(result.status == 0, "\(result.stderr)")
            if returned == nil,
                ((try? FileManager.default.contentsOfDirectory(atPath: shared[2] + "/cur")) ?? []).isEmpty
            {
                returned = Date().timeIntervalSince(killed)
            }
            if ((try? FileManager.default.contentsOfDirectory(atPath: shared[2] + "/new")) ?? ["?"]).filter({
                !$0.hasPrefix(".")
            }).isEmpty, returned != nil {
                break
            }
            sleep(1)
        }
        #expect(returned != nil, "host-a's claims were never returned")
        let requests = server.requests
        for i in 0..<4 {
            let keys = Set(requests.filter { $0.path == "/slow/\(i)" }.compactMap { $0.header("Idempotency-Key") })
            #expect(keys.count == 1, "/slow/\(i): sent again with the same key, never another")
        }
        #expect(Set(requests.map(\.path)).count == 4)
        print(
            "\(cluster.engine): host-a killed with 4 claims; host-b returned them "
                + "\(String(format: "%.1f", returned ?? -1)) s later (lease 12 s)"
        )
    }

    /// How a cut-off client comes back once the partition heals.
    enum Rejoin {
        /// Its mount answers again (GlusterFS): its calls failed with `errno` while cut off, and its watcher,
        /// which waited, goes on.
        case sameMount(errno: String)
        /// Its client was evicted and fenced, and its mount is given a new one (CephFS): its calls waited,
        /// then failed with `errno`; its watcher, whose descriptors are the old mount's, exits 75 for its
        /// supervisor to start it again, and the new one goes on.
        case newMount(errno: String)
    }

    /// The third host's client cut off from the cluster while its watcher holds claims: it claims nothing
    /// while cut off, the others deliver everything (its claims after the lease), and once healed it takes
    /// writes again and its watcher goes on (`rejoin`).
    func aPartitionedHostClaimsNothingAndTheOthersTakeOver(rejoin: Rejoin) throws {
        let shared = cluster.mounts.map { $0 + "/spool" }
        _ = try Spool(path: shared[0])
        let server = try TestServer { _ in .delayed(1, 204) }
        defer { server.stop() }
        let total = 30
        for n in 0..<total {
            let result = try Command.run(
                "spool-enqueue", ["--spool", shared[0], "PUT", server.baseURL + "/part/k\(n % 5)", "--body", "\(n)"])
            #expect(result.status == 0)
        }
        let sending = ["--watch", "--concurrency", "4", "--timeout", "5", "--lease", "10"]
        let (cut, _, cutErrors) = try onHostWithOutput("host-c", "spool-send", ["--spool", shared[2]] + sending)
        let ofC = { self.names(shared[0], "cur").filter { $0.contains("@host-c,") } }
        for _ in 0..<200 where ofC().count < 2 { usleep(25_000) }
        try cluster.partition()
        let partitioned = Date()
        // Claims that reached the volume before the cut show in the listing: wait until two looks agree.
        var claimedBeforeTheCut = Set(ofC())
        for _ in 0..<25 {
            usleep(200_000)
            let again = Set(ofC())
            if again == claimedBeforeTheCut { break }
            claimedBeforeTheCut = again
        }
        #expect(!claimedBeforeTheCut.isEmpty, "host-c held claims when it was cut off")
        let others = try [0, 1].map { try onHost(Self.hosts[$0], "spool-send", ["--spool", shared[$0]] + sending) }

        // While host-c is cut off, the others deliver everything, host-c's claims once the lease is over.
        var claimedUnderThePartition = Set<String>()
        let delivered = { Set(server.requests.compactMap { $0.header("Idempotency-Key") }).count }
        while delivered() < total || !names(shared[0], "cur").isEmpty, Date().timeIntervalSince(partitioned) < 90 {
            claimedUnderThePartition.formUnion(Set(ofC()).subtracting(claimedBeforeTheCut))
            usleep(200_000)
        }
        let takenOver = Date().timeIntervalSince(partitioned)
        #expect(delivered() == total && names(shared[0], "cur").isEmpty && names(shared[0], "new").isEmpty)
        #expect(claimedUnderThePartition.isEmpty, "host-c claimed while cut off: \(claimedUnderThePartition)")
        #expect(cut.isRunning, "a watcher cut off from its spool waits")

        // Healed: host-c's mount comes back and its worker goes on, or is started again on the new mount.
        cluster.heal()
        let healed = Date()
        var again: [Process] = []
        if case .newMount = rejoin {
            #expect(eventually(within: 60) { !cut.isRunning }, "the fenced watcher gives up its old mount")
            again.append(try onHost("host-c", "spool-send", ["--spool", shared[2]] + sending))
        }
        var enqueued = 0
        while enqueued < 10, Date().timeIntervalSince(healed) < 60 {
            let result = try Command.run(
                "spool-enqueue",
                ["--spool", shared[2], "PUT", server.baseURL + "/healed/k\(enqueued % 2)", "--body", "\(enqueued)"])
            if result.status == 0 { enqueued += 1 } else { usleep(250_000) }
        }
        let reconnected = Date().timeIntervalSince(healed)
        while delivered() < total + 10, Date().timeIntervalSince(healed) < 90 { usleep(100_000) }
        for process in others + again + [cut] where process.isRunning { process.interrupt() }
        for process in others + again + [cut] { process.waitUntilExit() }
        let stderr = String(decoding: cutErrors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        switch rejoin {
        case let .sameMount(errno):
            #expect(cut.terminationStatus == 0 && stderr.contains(errno) && stderr.contains("out of reach"),
                    "\(stderr)")
            #expect(!stderr.contains("(EBADF)") && !stderr.contains("(EIO)"), "the healed mount is used: \(stderr)")
        case let .newMount(errno):
            #expect(cut.terminationStatus == 75 && stderr.contains(errno) && stderr.contains("mounted again"),
                    "\(cut.terminationStatus): \(stderr)")
        }

        let requests = server.requests
        #expect(delivered() == total + 10, "every write applied: each Idempotency-Key reached the server")
        for path in Set(requests.map(\.path)) {
            var seen = Set<String>()
            let firsts = requests.filter { $0.path == path && seen.insert($0.header("Idempotency-Key") ?? "").inserted }
            let sequence = firsts.compactMap { Int(String(decoding: $0.body, as: UTF8.self)) }
            #expect(sequence == sequence.sorted(), "\(path) applied in order: \(sequence)")
        }
        for folder in ["new", "cur", "failed"] { #expect(names(shared[0], folder).isEmpty, "\(folder)") }
        // Only what host-c held when it was cut off may reach the server twice (sent by it, then after the
        // lease by another host): a worker that went on claiming, or sending what it no longer held, shows here.
        #expect(requests.count - total - 10 <= claimedBeforeTheCut.count, "sent twice: \(requests.count - total - 10)")
        print(
            "\(cluster.engine): host-c cut off with \(claimedBeforeTheCut.count) claims; the others delivered all \(total) "
                + "\(String(format: "%.1f", takenOver)) s after the cut (lease 10 s, \(cluster.timeouts)), "
                + "\(requests.count - total - 10) sent twice with the same key; host-c's mount took writes again "
                + "\(String(format: "%.1f", reconnected)) s after the partition healed")
    }
}
