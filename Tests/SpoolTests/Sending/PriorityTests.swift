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

/// Priorities: urgent keys first, one key's order never broken, the priority read from the name alone.
@Suite struct PriorityTests {
    @Test func theNameCarriesThePriority() {
        let state = RetryState(orderMicroseconds: 5, keyHash: 1, priority: -3)
        #expect(state.text == "o=5,k=0000000000000001,p=-3")
        #expect(RetryState(bytes: ArraySlice(state.text.utf8))?.priority == -3)
        #expect(RetryState(bytes: ArraySlice("o=5,k=0000000000000001,p=10".utf8))?.priority == 10)
        for bad in ["p=11", "p=-11", "p=0", "p=05", "p=", "p=+3", "p=--1"] {
            #expect(RetryState(bytes: ArraySlice("o=5,k=0000000000000001,\(bad)".utf8)) == nil, "\(bad)")
        }
        let name = Array("1796138399.M1P2Q1R3.vm:o=5,k=0000000000000001,p=-3,a=1,t=9".utf8)
        #expect(
            name.withUnsafeBufferPointer { QueueName.Facts($0) }?.dueSeconds == 9,
            "the planner's fast reading accepts p=")
    }

    @Test func tenUrgentWritesOvertakeTwoHundredLowOnes() throws {
        let server = try TestServer { _ in .respond(204, [:], "") }
        defer { server.stop() }
        let spool = TemporarySpool()
        let library = try spool.open()
        func enqueue(_ path: String, key: String, priority: Int) throws {
            let document = JSON.object([
                ("method", .string("PUT")), ("url", .string(server.baseURL + path)), ("key", .string(key)),
                ("priority", .number(String(priority)))
            ])
            _ = try library.enqueue(try Operation(document: document))
        }
        for i in 0..<200 { try enqueue("/low/\(i)", key: "low-\(i % 20)", priority: -5) }
        // A key whose low write comes before an urgent one: the lane takes the urgent priority, in its own order.
        let low = try Command.run(
            "spool-enqueue",
            ["--spool", spool.path, "PUT", server.baseURL + "/mixed/low", "--key", "mixed", "--priority", "-5"])
        #expect(low.status == 0, "\(low.stderr)")
        try enqueue("/mixed/high", key: "mixed", priority: 5)
        for i in 0..<10 { try enqueue("/high/\(i)", key: "high-\(i)", priority: 5) }
        #expect(
            spool.names("new").filter { $0.contains(",p=5") }.count == 11
                && spool.names("new").filter { $0.contains(",p=-5") }.count == 201)

        try spool.send(["--concurrency", "1"])
        let paths = server.requests.map(\.path)
        #expect(paths.count == 212 && spool.names("new").isEmpty)
        let first = paths.prefix(12)
        #expect(first.filter { $0.hasPrefix("/high/") }.count == 10, "the urgent writes first: \(Array(first))")
        #expect(
            first.contains("/mixed/low") && first.firstIndex(of: "/mixed/low")! < first.firstIndex(of: "/mixed/high")!,
            "one key's order holds whatever the priorities: \(Array(first))")
        let lows = paths.filter { $0.hasPrefix("/low/") }.map { Int($0.dropFirst(5))! }
        for key in 0..<20 {
            let sequence = lows.filter { $0 % 20 == key }
            #expect(sequence == sequence.sorted(), "key low-\(key) in order")
        }
    }
}
