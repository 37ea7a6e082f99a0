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

    @Test func aRefusedOriginCostsOneAttemptPerRun() throws {
        let spool = TemporarySpool()
        let port = Self.closedPort()
        let ids = try (0..<3).map { try spool.enqueue(["PUT", "http://127.0.0.1:\(port)/k\($0)", "--key", "k\($0)"]) }
        for run in 1...3 {
            #expect(try Command.run("spool-ctl", ["--spool", spool.path, "retry", "--now"]).status == 0)
            let result = try spool.send(["-v", "--concurrency", "4"])
            let sent = result.stderr.split(separator: "\n").filter {
                $0.contains("sending ") && $0.contains("127.0.0.1:\(port)")
            }
            #expect(sent.count == 1, "run \(run) tried one key: \(sent)")
            let attempts = spool.waiting().map { $0.state?.attempts ?? -1 }.reduce(0, +)
            #expect(attempts == run, "run \(run): one attempt per run in all, \(spool.waiting().map(\.fileName))")
        }
        #expect(Set(spool.waiting().map(\.id)) == Set(ids))
        #expect(spool.waiting().compactMap { $0.state?.lastError }.allSatisfy { $0 == "refused" })
    }
}
