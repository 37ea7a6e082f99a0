import Foundation
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

/// Totals per origin kept in `.origins` across runs, for Prometheus counters beside the gauges.
@Suite struct DeliveryCountsTests {
    @Test func countersAddUpAcrossRuns() throws {
        let spool = TemporarySpool()
        let flaky = Locked(true)
        let server = try TestServer { request in
            switch request.path {
            case "/bad": return .respond(400, [:], "no")
            case "/conflict": return .respond(409, [:], "")
            // A 500 is the operation's failure (backed off, an attempt); a 503 would be the origin's signal.
            case "/flaky": return flaky.withLock { $0 } ? .respond(500, [:], "") : .respond(204, [:], "")
            default: return .respond(204, [:], "")
            }
        }
        defer { server.stop() }
        for path in ["/ok", "/bad", "/conflict", "/flaky"] { try spool.enqueue(["PUT", server.baseURL + path]) }
        try spool.send()
        flaky.withLock { $0 = false }
        #expect(try Command.run("spool-ctl", ["--spool", spool.path, "retry", "--now"]).status == 0)
        try spool.enqueue(["PUT", server.baseURL + "/ok2"])
        try spool.send()
        // The writes; the conflict also made one GET of the server's version, which counts as none of these.
        #expect(server.requests.filter { $0.method != "GET" }.count == 6 && spool.waiting().isEmpty)

        let origin = try Operation.origin(of: server.baseURL)
        let prometheus = try Command.run("spool-ctl", ["--spool", spool.path, "stats", "--prometheus"])
        let labels = "{spool=\"\(spool.path)\",origin=\"\(origin)\"}"
        for (name, value) in [("delivered", 3), ("failed", 1), ("conflicted", 1), ("deferred", 1), ("retried", 1)] {
            #expect(prometheus.stdout.contains("# TYPE spool_origin_\(name)_total counter\n"), "\(name)")
            #expect(
                prometheus.stdout.contains("spool_origin_\(name)_total\(labels) \(value)\n"),
                "\(name) = \(value) in \(prometheus.stdout)")
        }
        let stats = try Command.run("spool-ctl", ["--spool", spool.path, "stats"])
        #expect(stats.stdout.contains("3 delivered, 1 failed, 1 conflicted, 1 deferred, 1 retried"), "\(stats.stdout)")
    }

    @Test func hostileCountsAreBounded() {
        let record = OriginRecord(
            line: "http://a.example delivered=9223372036854775807 failed=-3 conflicted=x deferred=12 retried=4")
        #expect(record?.deliveries[.delivered] == OriginRecord.largestCount)
        #expect(record?.deliveries[.failed] == 0 && record?.deliveries[.conflicted] == 0)
        #expect(record?.deliveries[.deferred] == 12 && record?.deliveries[.retried] == 4)
        #expect(record.flatMap { OriginRecord(line: Substring($0.line)) } == record, "the line reads back as written")
    }
}
