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

/// A transport failure blocks its origin for the rest of the run, every run: until an origin has answered
/// in a run, its first request goes alone, so a closed port costs one attempt per run, not one per lane.
@Suite struct RefusedOriginTests {
    /// A port on 127.0.0.1 that nothing listens on: bound, then closed.
    static func closedPort() -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return UInt16(bigEndian: address.sin_port)
    }

    /// A refused origin costs one attempt per run, and none at all until its backoff is over: a cron run
    /// in between leaves its writes by their names. `--flush` probes it at once.
    @Test func aRefusedOriginCostsOneAttemptPerRun() throws {
        let spool = TemporarySpool()
        let port = Self.closedPort()
        let ids = try (0..<3).map { try spool.enqueue(["PUT", "http://127.0.0.1:\(port)/k\($0)", "--key", "k\($0)"]) }
        for run in 1...3 {
            let result = try spool.send(["-v", "--concurrency", "4", "--flush"])
            let sent = result.stderr.split(separator: "\n").filter {
                $0.contains("sending ") && $0.contains("127.0.0.1:\(port)")
            }
            #expect(sent.count == 1, "run \(run) tried one key: \(sent)")
            let attempts = spool.waiting().map { $0.state?.attempts ?? -1 }.reduce(0, +)
            #expect(attempts == run, "run \(run): one attempt per run in all, \(spool.waiting().map(\.fileName))")
        }
        let record = try #require(OriginRecord.read(try spool.open()).first)
        #expect(record.pausedBy == "unreachable" && record.failedProbes == 3, "\(record.line)")
        #expect(record.pausedUntil > Timestamp.nowSeconds(), "probed again after its backoff: \(record.line)")
        let held = try spool.send(["-v"])
        #expect(!held.stderr.contains("sending "), "the backoff holds every write: \(held.stderr)")
        #expect(held.stderr.contains("unreachable since "), "\(held.stderr)")
        #expect(Set(spool.waiting().map(\.id)) == Set(ids))
        #expect(spool.waiting().compactMap { $0.state?.lastError }.allSatisfy { $0 == "refused" })
    }

    /// Once the origin refused, the lanes behind it hold their operations back by the name's origin hash,
    /// unread: a cron run over a down server's backlog opens the probe's document (and those the other lanes
    /// read before the probe failed), not every document.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/strace"), "needs strace; .ci/run installs it"))
    func aRefusedOriginsBacklogIsHeldBackUnread() throws {
        let spool = TemporarySpool()
        let port = Self.closedPort()
        for index in 0..<120 { try spool.enqueue(["PUT", "http://127.0.0.1:\(port)/item/\(index)", "--body", "b"]) }
        let trace = spool.directory + "/trace"
        let traced = try Command.run(
            "/usr/bin/strace",
            ["-f", "-qq", "-e", "trace=openat", "-o", trace, Command.path("spool-send"), "--spool", spool.path,
             "--once", "--concurrency", "4"], environment: Sanitizer.withoutLeakCheck)
        #expect(traced.status == 0, "\(traced.stderr)")
        let calls = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
        let documents = calls.filter { $0.contains("openat(") && $0.contains(":o=") }
        #expect((1...4).contains(documents.count), "documents opened: \(documents.count), \(documents.prefix(3))")
        #expect(traced.stderr.contains("127.0.0.1:\(port): refused") && traced.stderr.contains("119 more operation(s) held back"),
                "\(traced.stderr)")
        let waiting = spool.waiting()
        #expect(waiting.count == 120)
        #expect(waiting.filter { ($0.state?.attempts ?? 0) > 0 }.count == 1, "one probe: \(waiting.map(\.fileName))")
    }

    /// A name is taken at its word only from root or the spool's owner: a producer's operation of a stopped
    /// origin is read all the same, so that a name carrying another's order is still found and filed. Here
    /// three files change owner after they were queued, which is how their order stops being their producer's.
    @Test(.enabled(if: getuid() == 0, "needs root, to give files to another user"))
    func aProducersNameIsReadEvenWhenItsOriginIsStopped() throws {
        let spool = TemporarySpool()
        let port = Self.closedPort()
        let ids = try (0..<20).map { try spool.enqueue(["PUT", "http://127.0.0.1:\(port)/item/\($0)", "--body", "b"]) }
        let given = Set(ids[10..<13])
        for name in spool.operations("new") where given.contains(where: { name.hasPrefix($0 + ":") }) {
            #expect(chown("\(spool.path)/new/\(name)", 65534, 65534) == 0)
        }
        let result = try spool.send(["--concurrency", "1"])
        let filed = Set(spool.operations("failed").map { String($0.prefix { $0 != ":" }) })
        #expect(filed == given, "\(result.stderr)")
        #expect(spool.operations("new").count == 17)
        #expect(result.stderr.contains("refused") && result.stderr.contains("16 more operation(s) held back"),
                "\(result.stderr)")
    }
}
