import Foundation
import Glibc
import Testing
@testable import Spool
@testable import SpoolSystem
@testable import SpoolTransport
@testable import SpoolNames
@testable import SpoolDocument
@testable import SpoolConfiguration
@testable import SpoolQueue
@testable import SpoolHandlers
@testable import SpoolSending
@testable import SpoolReporting
@testable import SpoolControl

/// The network coming back wakes a watcher (rtnetlink), in a network namespace the test makes: an operation
/// deferred as `refused` while only a downed `lo` exists is delivered within a second of `lo` coming up.
@Suite(
    .serialized,
    .enabled(if: NetworkNamespace.unavailable == nil, "needs network namespaces: \(NetworkNamespace.unavailable ?? "")")
)
struct NetworkChangeTests {
    @Test func aLinkComingUpRetriesWhatTheNetworkDeferred() throws {
        let namespace = try #require(NetworkNamespace.make("net"), "the network namespace could not be made")
        // The server listens already (binding works on a downed lo); connecting gives ENETUNREACH until it is up.
        let server = try QuirkServer(namespace: namespace.name)
        let spool = TemporarySpool()
        // A write deferred as if TLS had failed: one --once run defers it as refused, then it is renamed so.
        try spool.enqueue(["PUT", server.baseURL + "/tls-waits", "--key", "other"])
        let once = try Command.run(
            "/usr/sbin/ip", namespace.arguments(Command.path("spool-send"), ["--spool", spool.path, "--once"]))
        let refused = try #require(spool.names("new").first { $0.contains("e=refused") }, "\(once.stderr)")
        rename("\(spool.path)/new/\(refused)",
               "\(spool.path)/new/\(refused.replacingOccurrences(of: "e=refused", with: "e=tls"))")
        try spool.enqueue(["PUT", server.baseURL + "/back", "--key", "k", "--body", "1"])
        try spool.enqueue(["PUT", server.baseURL + "/after", "--key", "k", "--body", "2"])
        // The origin's own backoff would hold /back until its next probe: over, as if that run had been long ago
        // (`spool-ctl flush --origin` would make /tls-waits due too).
        #expect(unlink("\(spool.path)/.origins") == 0)
        let (watcher, _, err) = try Command.start("/usr/sbin/ip", namespace.arguments(Command.path("spool-send"),
            ["--spool", spool.path, "--watch", "-v", "--min-backoff", "300"]))
        defer { if watcher.isRunning { watcher.interrupt() } }
        // The head of k is refused (/after waits behind it), and its origin is down for 150 s or more.
        let deferred = { spool.names("new").filter { $0.contains("e=refused") } }
        #expect(eventually(within: 5) { deferred().count == 1 }, "/back deferred as refused: \(spool.names("new"))")

        let before = server.requests.count
        let raised = Date()
        #expect(namespace.run("ip link set lo up") == 0)
        var delivered: Double?
        while Date().timeIntervalSince(raised) < 10 {
            if server.requests.filter({ $0.path == "/after" }).count == 1 {
                delivered = Date().timeIntervalSince(raised); break
            }
            usleep(10_000)
        }
        watcher.interrupt()
        watcher.waitUntilExit()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(before == 0)
        #expect(
            (delivered ?? 99) < 1,
            "delivered \(delivered.map { String(format: "%.2f", $0) } ?? "never") s after lo came up: \(stderr)")
        let paths = server.requests(atLeast: 2).map(\.path)
        #expect(paths.filter { $0 != "/tls-waits" } == ["/back", "/after"], "once each, in order per key: \(paths)")
        #expect(!paths.contains("/tls-waits"), "a TLS failure waits out its backoff")
        #expect(spool.names("new").count == 1 && spool.names("new")[0].contains("e=tls"))
        #expect(stderr.contains("the network changed"), "\(stderr)")
        print(
            "network change: deferred as refused, delivered "
                + "\(String(format: "%.2f", delivered ?? -1)) s after lo came up (backoff 300 s)"
        )
    }
}
