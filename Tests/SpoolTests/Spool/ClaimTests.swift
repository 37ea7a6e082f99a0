import Foundation
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

@Suite struct ClaimTests {
    @Test func fourWorkersClaimTenThousandOperationsExactlyOnce() throws {
        let temporary = TemporarySpool()
        let spool = try temporary.open()
        var ids = Set<String>()
        for i in 0..<10_000 {
            let operation = try Operation(
                document: .object([("method", .string("PUT")), ("url", .string("http://h/\(i)"))]))
            ids.insert(try spool.enqueue(operation))
        }
        let workers = try (0..<4).map { _ in try Command.start("spool-testhelper", ["claim-all", temporary.path]) }
        var claimed: [String] = []
        var perWorker: [Int] = []
        for (process, out, err) in workers {
            let lines = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(
                separator: "\n"
            ).map(String.init)
            process.waitUntilExit()
            #expect(
                process.terminationStatus == 0,
                "\(String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))")
            claimed += lines
            perWorker.append(lines.count)
        }
        #expect(claimed.count == 10_000, "claims per worker: \(perWorker)")
        #expect(Set(claimed) == ids)
        #expect(temporary.names("new").isEmpty)
        #expect(temporary.names("cur").isEmpty)
    }

    @Test func claimNamesTheOwnerAndOnlyOneClaimWins() throws {
        let temporary = TemporarySpool()
        let spool = try temporary.open()
        let id = try spool.enqueue(
            try Operation(document: .object([("method", .string("DELETE")), ("url", .string("http://h/1"))])))
        var entries: [QueueEntry] = []
        try spool.scanNew { entries.append($0) }
        let entry = try #require(entries.first)
        let first = spool.withLock { transaction in transaction.claim(entry) }
        let second = spool.withLock { transaction in transaction.claim(entry) }
        #expect(first.wasMoved)
        guard case .gone = second else {
            Issue.record("a second claim of one entry must find it gone: \(second)")
            return
        }
        let name = try #require(temporary.names("cur").first)
        #expect(name.hasPrefix(id + ":"))
        let claim = try #require(QueueName(FileName(name))?.claim)
        #expect(claim.owner == ProcessIdentity.current)
        #expect(claim.owner.isAlive == true)
    }
}
