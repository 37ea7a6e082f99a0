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

/// The key derived for documents without `idempotency_key`: the same on every attempt of one write,
/// different for another write under the same name.
@Suite struct IdempotencyKeyTests {
    @Test func derivedFromIDOrderAndWhatIsSent() throws {
        func key(_ id: String = "user-42", _ order: Int64 = 1, _ method: String = "PUT", _ body: String? = "A")
            -> String
        {
            IdempotencyKey.derived(
                id: id, orderMicroseconds: order, method: method, url: "http://x/u", body: body.map { Array($0.utf8) })
        }
        #expect(key() == key())
        #expect(key() != key("user-42", 2))
        #expect(key() != key("user-42", 1, "PUT", "B"))
        #expect(key() != key("user-42", 1, "DELETE", nil))
        #expect(key() != key("user-43"))
    }

    @Test func sameNameDroppedTwiceOrInAnotherSpoolGetsAnotherKey() throws {
        let resource = VersionedResource(loseResponse: { $0 == 1 })
        let server = try TestServer { resource.handle($0) }
        defer { server.stop() }
        let spool = TemporarySpool(), other = TemporarySpool()
        spool.drop("new", "user-42", #"{"method":"PUT","url":"\#(server.baseURL)/u","body":"A"}"#)
        try spool.send()
        try spool.send(["--flush"])
        spool.drop("new", "user-42", #"{"method":"PUT","url":"\#(server.baseURL)/u","body":"B"}"#)
        try spool.send()
        other.drop("new", "user-42", #"{"method":"DELETE","url":"\#(server.baseURL)/u"}"#)
        try other.send()
        #expect(spool.names("new").isEmpty && other.names("new").isEmpty)
        let keys = server.requests.map { $0.header("Idempotency-Key") ?? "" }
        #expect(keys.count == 4)
        #expect(keys[0] == keys[1], "a retry of the lost first write keeps its key")
        #expect(Set(keys).count == 3, "keys: \(keys)")
    }
}
