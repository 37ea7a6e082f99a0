import Foundation
import SpoolTestSupport
import Testing
@testable import Spool

/// The key derived for documents without `idempotency_key`: the same on every attempt of one write,
/// different for another write under the same name.
@Suite struct IdempotencyKeyTests {
    @Test func derivedFromIDOrderAndDocument() throws {
        let a = try JSON.parse(#"{"method":"PUT","url":"http://x/u","body":"A"}"#)
        let b = try JSON.parse(#"{"method":"PUT","url":"http://x/u","body":"B"}"#)
        let key = IdempotencyKey.derived(id: "user-42", orderMicroseconds: 1, document: a)
        #expect(key == IdempotencyKey.derived(id: "user-42", orderMicroseconds: 1, document: a))
        #expect(key != IdempotencyKey.derived(id: "user-42", orderMicroseconds: 2, document: a))
        #expect(key != IdempotencyKey.derived(id: "user-42", orderMicroseconds: 1, document: b))
        #expect(key != IdempotencyKey.derived(id: "user-43", orderMicroseconds: 1, document: a))
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
