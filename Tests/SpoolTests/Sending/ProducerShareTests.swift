import Foundation
import Glibc
import SpoolTestSupport
import Testing
@testable import Spool
@testable import SpoolQueue
@testable import SpoolSystem

/// Producers share an origin fairly (spool(5), A spool for many users): a pause or a learned rate one
/// producer's writes drew holds back theirs only, and when the origin's window is full, each producer's
/// writes get their turn. Producers are uids 4242 and 4343; nobody owns the spool and sends.
@Suite(.serialized) struct ProducerShareTests {
    static let alice = 4242, bob = 4343

    /// One producer's writes draw `429 Retry-After: 86400`; the other's, queued after, still go, in this run
    /// and in the cron runs after it, and the first producer's are not sent again meanwhile.
    @Test(.enabled(if: Nobody.unavailable == nil, "\(Nobody.unavailable ?? "")"))
    func oneProducersStormLeavesAnothersWritesFlowing() throws {
        let server = try TestServer { request in
            request.path.hasPrefix("/alice") ? .respond(429, ["Retry-After": "86400"], "") : .respond(204, [:], "")
        }
        defer { server.stop() }
        let shared = try SharedSpool()
        for index in 0..<3 { try shared.produce(Self.alice, ["PUT", server.baseURL + "/alice/\(index)"]) }
        let first = try shared.send()
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains("paused for 4242's writes") || first.stderr.contains("paused for uid 4242"),
                "\(first.stderr)")
        let aliceSent = server.requests.filter { $0.path.hasPrefix("/alice") }.count
        #expect(aliceSent >= 1)
        for run in 0..<3 {
            for index in 0..<2 { try shared.produce(Self.bob, ["PUT", server.baseURL + "/bob/\(run)-\(index)"]) }
            let result = try shared.send()
            #expect(result.status == 0, "\(result.stderr)")
            #expect(server.requests.filter { $0.path.hasPrefix("/bob") }.count == 2 * (run + 1),
                    "run \(run): bob's writes were held back: \(result.stderr)")
        }
        #expect(server.requests.filter { $0.path.hasPrefix("/alice") }.count == aliceSent,
                "alice's paused writes were sent again")
        #expect(shared.spool.operations("new").count == 3, "alice's three wait")
        let records = OriginRecord.read(try shared.spool.open())
        #expect(records.contains { $0.producer == UInt32(Self.alice) && $0.pausedUntil > Timestamp.nowSeconds() },
                "\(records)")
        #expect(!records.contains { $0.producer == nil && $0.pausedUntil > 0 }, "the origin itself is not paused")
        let stats = try Nobody.run("spool-ctl", ["--spool", shared.spool.path, "stats"])
        #expect(stats.stdout.contains("(producer 4242)"), "\(stats.stdout)")
    }

    /// With room for one request at the origin, a producer who queued one write after another's ten is
    /// served second, not eleventh: waiters are let in a producer at a time.
    @Test(.enabled(if: Nobody.unavailable == nil, "\(Nobody.unavailable ?? "")"))
    func aFullWindowServesProducersInTurn() throws {
        // The first request is held until the sender's other lanes have started behind it: the order in
        // which they are then let in is the turns', not their start's.
        let held = try HeldServer(holding: "/alice/0", status: 204)
        let server = held.server
        defer { server.stop() }
        let shared = try SharedSpool(settings: "max-concurrency = 1\n")
        for index in 0..<10 { try shared.produce(Self.alice, ["PUT", server.baseURL + "/alice/\(index)"]) }
        try shared.produce(Self.bob, ["PUT", server.baseURL + "/bob/0"])
        let (sender, _, err) = try Command.start(
            "/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", Command.path("spool-send"),
                                 "--spool", shared.spool.path, "--once", "--config", shared.config, "--concurrency", "8"])
        #expect(eventually(within: 10) { held.isHolding }, "the first request reached the server")
        held.release()
        sender.waitUntilExit()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(sender.terminationStatus == 0, "\(stderr)")
        let paths = server.requests.map(\.path)
        #expect(paths.count == 11)
        let bob = try #require(paths.firstIndex(of: "/bob/0"))
        #expect(bob <= 3, "bob's write was served \(bob + 1)th: \(paths)")
    }

    /// The producer policy's `queue` and `bytes` hold for each producer, who cannot list `new/`: the counts
    /// the sender keeps in `.waiting`, and their drops since.
    @Test(.enabled(if: Nobody.unavailable == nil, "\(Nobody.unavailable ?? "")"))
    func thePolicyLimitsWhatEachProducerHasWaiting() throws {
        let server = try TestServer { _ in .respond(204, [:], "") }
        defer { server.stop() }
        let shared = try SharedSpool(policy: "* queue 2\n* bytes 1k\n")
        _ = try shared.send()
        try shared.produce(Self.alice, ["PUT", server.baseURL + "/alice/0"])
        try shared.produce(Self.alice, ["PUT", server.baseURL + "/alice/1"])
        let third = try shared.tryProducing(Self.alice, ["PUT", server.baseURL + "/alice/2"])
        #expect(third.status == 75, "\(third.status) \(third.stderr)")
        #expect(third.stderr.contains("2 of your writes wait in new/, the limit is 2 (queue in the producer policy "
            + "\(shared.policyPath))"), "\(third.stderr)")
        let body = String(repeating: "b", count: 600)
        try shared.produce(Self.bob, ["PUT", server.baseURL + "/bob/0", "--body", body])
        let large = try shared.tryProducing(Self.bob, ["PUT", server.baseURL + "/bob/1", "--body", body])
        #expect(large.status == 75 && large.stderr.contains("would pass the limit of 1024 (bytes"), "\(large.stderr)")
        let sent = try shared.send()
        #expect(sent.status == 0 && server.requests.count == 3, "\(sent.stderr)")
        try shared.produce(Self.alice, ["PUT", server.baseURL + "/alice/2"])
        try shared.produce(Self.bob, ["PUT", server.baseURL + "/bob/1", "--body", body])
    }
}
