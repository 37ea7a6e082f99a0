import Foundation
import Glibc
import SpoolTestSupport
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

/// A backlog after a long outage, for real: 100,000 operations dropped by the shell protocol into one spool
/// are admitted, listed and delivered, each once and in order per key. Not timed (spool-bench --large
/// measures the million).
@Suite struct LargeQueueTests {
    static let count = 100_000, keys = 500

    @Test(.enabled(if: Sanitizer.name == nil, Sanitizer.distorts))
    func aHundredThousandDroppedOperationsAreAdmittedListedAndDelivered() throws {
        let applied = Locked<[String: [Int]]>([:])
        let server = try TestServer { request in
            let body = Int(String(decoding: request.body, as: UTF8.self)) ?? -1
            applied.withLock { $0[request.path, default: []].append(body) }
            return .respond(204, [:], "")
        }
        defer { server.stop() }
        let spool = TemporarySpool()
        for i in 0..<Self.count {
            let name = String(format: "drop-%06d", i)
            spool.drop(
                "tmp", name, #"{"method":"PUT","url":"\#(server.baseURL)/item/\#(i % Self.keys)","body":"\#(i)"}"#)
            rename("\(spool.path)/tmp/\(name)", "\(spool.path)/new/\(name)")
        }

        // Listed before anything moves: oldest first, every one of them.
        let listed = try Command.run("spool-ctl", ["--spool", spool.path, "list", "--json"], timeout: 600)
        let lines = listed.stdout.split(separator: "\n")
        #expect(listed.status == 0 && lines.count == Self.count, "\(lines.count) listed")
        // Plain names are ordered by their files' times, which the file system keeps in coarse steps.
        let stamps = lines.map { line in
            line.firstRange(of: #""enqueued_at":""#).map { String(line[$0.upperBound...].prefix(20)) } ?? ""
        }
        #expect(stamps == stamps.sorted(), "in enqueue order")
        let ids = Set(
            lines.compactMap { line in line.firstRange(of: #""id":""#).map { String(line[$0.upperBound...].prefix(11)) }
            })
        #expect(ids.count == Self.count, "each once")

        // Not timed, and run beside the whole suite on two cores: the limit is only there to end a hang.
        let sent = try Command.run(
            "spool-send", ["--spool", spool.path, "--once", "--concurrency", "8"], timeout: 1200)
        #expect(sent.status == 0, "\(sent.stderr.suffix(500))")
        #expect(spool.names("new").isEmpty && spool.names("cur").isEmpty && spool.names("failed").isEmpty)
        let record = applied.withLock { $0 }
        #expect(record.values.reduce(0) { $0 + $1.count } == Self.count, "each once")
        #expect(record.count == Self.keys && record.values.allSatisfy { $0 == $0.sorted() }, "in order per key")
    }
}
