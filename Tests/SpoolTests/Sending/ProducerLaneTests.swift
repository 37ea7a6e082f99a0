import Foundation
import Glibc
import SpoolTestSupport
import Testing
@testable import Spool
@testable import SpoolSystem
@testable import SpoolNames
@testable import SpoolQueue

/// Where producers drop (`new/` writable by its group), a name is taken for its owner's order only: a
/// producer who writes another's key hash into a name makes a lane of their own, and cannot hold that key
/// back with a name the plan reads without opening the document (`s=held`, a late `t=`, a paused `h=`).
@Suite(.enabled(if: getuid() == 0, "needs root, to give a file to another user"))
struct ProducerLaneTests {
    /// The spool's writes of `/victim` and a producer's planted name in their key, first in its order.
    func plant(_ spool: TemporarySpool, _ server: TestServer, facts: String) throws {
        try spool.enqueue(["PUT", server.baseURL + "/victim", "--body", "v"])
        #expect(chmod(spool.path + "/new", 0o770) == 0)
        let victim = try #require(spool.waiting().first)
        let key = String(victim.state!.keyHash, radix: 16).leftPadded(to: 16)
        let planted = "1000000000.M1P1Q1R1.planted:o=\(Int64(victim.state!.orderMicroseconds) - 1),k=\(key)\(facts)"
        spool.drop("new", planted, #"{"method":"PUT","url":"\#(server.baseURL)/planted","body":"p"}"#)
        #expect(chown(spool.path + "/new/" + planted, 65534, 65534) == 0)
    }

    @Test(arguments: [",s=held", ",a=1,t=\(Int(Date().timeIntervalSince1970) + 86_400)"])
    func aPlantedNameThatWaitsDoesNotHoldBackTheKey(facts: String) throws {
        let spool = TemporarySpool()
        let server = try TestServer { _ in .respond(204, [:], "") }
        defer { server.stop() }
        try plant(spool, server, facts: facts)
        let result = try spool.send()
        #expect(server.requests.map(\.path) == ["/victim"], "\(result.stderr)")
        #expect(spool.operations("new").map { $0.hasPrefix("1000000000.M1P1Q1R1.planted:") } == [true],
                "the planted name waits in its own lane")
    }

    /// The same planted name, due: read in its own lane, and filed as not its document's order.
    @Test func aPlantedNameThatIsDueIsFiled() throws {
        let spool = TemporarySpool()
        let server = try TestServer { _ in .respond(204, [:], "") }
        defer { server.stop() }
        try plant(spool, server, facts: "")
        let result = try spool.send()
        #expect(server.requests.map(\.path) == ["/victim"], "\(result.stderr)")
        #expect(spool.operations("failed") == ["1000000000.M1P1Q1R1.planted"], "\(result.stderr)")
        #expect(spool.read("failed", "1000000000.M1P1Q1R1.planted.why").contains("not its document's key"))
    }
}
