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

/// Answers real servers give that the engines before libcurl got wrong: trailers, an IPv6 literal over
/// https, heads of 100 KiB and more, a 204 with a body, and slow answers to many lanes at once.
@Suite(.enabled(if: TestCertificates.shared != nil, "needs openssl (.ci/run installs it)"))
struct QuirkTests {
    let certificates = TestCertificates.shared!

    @Test(arguments: [false, true]) func trailersAreAccepted(tls: Bool) throws {
        let server = try QuirkServer(tls: tls)
        let spool = TemporarySpool()
        try spool.enqueue(["PUT", server.baseURL + "/trailers", "--body", "x"])
        try spool.send(["--cacert", certificates.caFile])
        #expect(spool.names("new").isEmpty && spool.names("cur").isEmpty && spool.names("failed").isEmpty)
        #expect(server.requests(atLeast: 1).count == 1)
    }

    @Test(arguments: [false, true]) func ipv6Literal(tls: Bool) throws {
        let server = try QuirkServer(host: "::1", tls: tls)
        #expect(server.baseURL.hasPrefix(tls ? "https://[::1]:" : "http://[::1]:"))
        let spool = TemporarySpool()
        try spool.enqueue(["PUT", server.baseURL + "/v6", "--body", "x"])
        try spool.send(["--cacert", certificates.caFile])
        #expect(server.requests(atLeast: 1).map(\.path) == ["/v6"])
        #expect(spool.names("new").isEmpty)
    }

    @Test func largeHeadsAreReadAndTooLargeOnesFiledNotResent() throws {
        let server = try QuirkServer()
        let spool = TemporarySpool()
        try spool.enqueue(["PUT", server.baseURL + "/big-headers", "--body", "x"])
        let huge = try spool.enqueue(["PUT", server.baseURL + "/huge-headers", "--body", "y"])
        // One lane at a time, so that the server logs them in enqueue order.
        try spool.send(["--concurrency", "1"])
        try spool.send(["--flush"])
        #expect(spool.names("new").isEmpty)
        #expect(spool.operations("failed") == [huge])
        #expect(spool.read("failed", huge + ".why").contains("answer could not be read"))
        #expect(server.requests(atLeast: 3).map(\.path) == ["/big-headers", "/huge-headers"], "each sent once")
    }

    @Test func bodyAfterA204IsNotReadAsTheNextAnswer() throws {
        let server = try QuirkServer()
        let spool = TemporarySpool()
        try spool.enqueue(["PUT", server.baseURL + "/204-body", "--key", "k", "--body", "1"])
        try spool.enqueue(["PUT", server.baseURL + "/next", "--key", "k", "--body", "2"])
        try spool.enqueue(["PUT", server.baseURL + "/last", "--key", "k", "--body", "3"])
        try spool.send(["--concurrency", "1"])
        #expect(spool.names("new").isEmpty, "every answer was read as its own")
        #expect(server.requests(atLeast: 3).map(\.path) == ["/204-body", "/next", "/last"])
    }

    @Test func sixteenSlowLanesStartTogether() throws {
        let server = try QuirkServer()
        let spool = TemporarySpool()
        for i in 0..<16 { try spool.enqueue(["PUT", server.baseURL + "/slow", "--key", "lane-\(i)"]) }
        // An origin's window starts at 4 and grows with its answers; this one is trusted with 16 at once.
        let configuration = spool.directory + "/spool.conf"
        try "[default]\ninitial-concurrency = 16\n".write(toFile: configuration, atomically: true, encoding: .utf8)
        let started = Date()
        try spool.send(["--concurrency", "16", "--config", configuration])
        let elapsed = Date().timeIntervalSince(started)
        let starts = server.requests(atLeast: 16).map(\.started)
        #expect(starts.count == 16)
        #expect(
            (starts.max() ?? 0) - (starts.min() ?? 0) < 0.1, "spread \((starts.max() ?? 0) - (starts.min() ?? 0)) s")
        #expect(elapsed < 4, "took \(elapsed) s")
        #expect(spool.names("new").isEmpty)
    }

    @Test func droppedKeepAliveConnectionOverTLSCostsNoWait() throws {
        let server = try QuirkServer(tls: true)
        let spool = TemporarySpool()
        for i in 0..<12 { try spool.enqueue(["PUT", server.baseURL + "/drop/k\(i % 2)", "--body", "\(i)"]) }
        let started = Date()
        try spool.send(["--concurrency", "1", "--cacert", certificates.caFile])
        let elapsed = Date().timeIntervalSince(started)
        #expect(
            spool.names("new").isEmpty,
            "each dropped request went again at once on a fresh connection: \(spool.names("new"))")
        #expect(elapsed < 2, "took \(elapsed) s")
        #expect(server.requests(atLeast: 16).count > 12, "the dropped ones were sent again")
    }
}
