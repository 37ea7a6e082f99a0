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

/// The producer policy of a shared spool (spool(5), PRODUCERS): its file read strictly, and what it lets each
/// producer name, decided from facts alone.
@Suite struct ProducerPolicyTests {
    static let alice = SystemUser(uid: 1001, name: "alice", groups: ["alice", "backup"])
    static let bob = SystemUser(uid: 1002, name: "bob", groups: ["bob"])

    static let policy = try! ProducerPolicy.parse(
        """
        # WHO     WHAT      NAMES
        alice     origin    https://API.example.com:443 http://127.0.0.1:8080
        alice     auth      billing
        @backup   handler   rsync-backup   # a comment
        *         origin    https://status.example.com
        bob       auth      *
        """, path: "/etc/spool/producers")

    static func operation(_ text: String) throws -> SpoolDocument.Operation { try Operation(bytes: Array(text.utf8)) }

    @Test func rightsAreTheUnionOfTheLinesThatMatch() {
        let alice = Self.policy.rights(of: Self.alice)
        #expect(alice.origins?.names == ["https://api.example.com", "http://127.0.0.1:8080", "https://status.example.com"])
        #expect(alice.profiles.names == ["billing"])
        #expect(alice.handlers.names == ["rsync-backup"], "through the group backup")
        let bob = Self.policy.rights(of: Self.bob)
        #expect(bob.origins?.names == ["https://status.example.com"])
        #expect(bob.profiles.names == nil, "'*' is any profile")
        #expect(bob.handlers.names == [])
    }

    @Test func withoutAPolicyAProducerMaySendAnywhereButNameNoProfileOrHandler() throws {
        let rights = ProducerPolicy().rights(of: Self.bob)
        #expect(rights.refusal(try Self.operation(#"{"method":"PUT","url":"https://x.example/1"}"#), policyPath: nil)
            == nil)
        let profile = try #require(rights.refusal(
            try Self.operation(#"{"method":"PUT","url":"https://x.example/1","auth":"billing"}"#), policyPath: nil))
        #expect(profile == "dropped by bob (uid 1002), who may not name the auth profile 'billing' under no producer "
            + "policy (spool(5), PRODUCERS); nothing was sent")
        let handler = try #require(rights.refusal(
            try Self.operation(#"{"handler":"rsync-backup","args":["a"]}"#), policyPath: nil))
        #expect(handler.contains("may not run the handler 'rsync-backup'"))
    }

    @Test func aRefusalNamesTheProducerWhatAndThePolicy() throws {
        let alice = Self.policy.rights(of: Self.alice)
        let elsewhere = try Self.operation(#"{"method":"POST","url":"https://evil.example/x","auth":"billing"}"#)
        #expect(alice.refusal(elsewhere, policyPath: "/etc/spool/producers")
            == "dropped by alice (uid 1001), who may not send to https://evil.example under the producer policy "
            + "/etc/spool/producers; nothing was sent")
        let allowed = try Self.operation(#"{"method":"PUT","url":"https://api.example.com/a","auth":"billing"}"#)
        #expect(alice.refusal(allowed, policyPath: "/etc/spool/producers") == nil)
        let otherProfile = try Self.operation(#"{"method":"PUT","url":"https://api.example.com/a","auth":"root-token"}"#)
        #expect(alice.refusal(otherProfile, policyPath: nil)?.contains("auth profile 'root-token'") == true)
        let job = try Self.operation(#"{"handler":"rsync-backup","args":["/srv"]}"#)
        #expect(alice.refusal(job, policyPath: nil) == nil)
    }

    @Test func badLinesAreErrorsNamingTheLine() {
        func error(_ text: String) -> String {
            do {
                _ = try ProducerPolicy.parse(text, path: "/etc/spool/producers")
                return "no error"
            } catch { return error.description }
        }
        #expect(error("alice origin") == "/etc/spool/producers line 1: expected 'WHO WHAT NAME...' (for example "
            + "'alice auth billing')")
        #expect(error("\n\nalice write https://a.example") == "/etc/spool/producers line 3: 'write' is not origin, "
            + "auth, handler, queue or bytes")
        #expect(error("alice queue many").contains("'queue' takes one count of writes"))
        #expect(error("alice queue 0").contains("'queue' takes one count of writes"))
        #expect(error("alice bytes 1M 2M").contains("'bytes' takes one size"))
        #expect(error("@ origin *") == "/etc/spool/producers line 1: '@' must be followed by a group name")
        #expect(error("alice origin https://a.example/path").contains("is not an origin such as"))
        #expect(error("alice\torigin\thttps://a.example\r\nbob auth x\r\n") == "no error", "tabs and CRLF lines")
    }

    /// Of several lines, the largest limit holds, and `*` is none.
    @Test func queueAndBytesLimitsTakeTheLargestLine() throws {
        let policy = try ProducerPolicy.parse(
            "* queue 10\n@batch queue 1000\nalice bytes 1M\n@batch bytes *\n", path: "p")
        let alice = policy.rights(of: SystemUser(uid: 1001, name: "alice", groups: ["alice"]))
        #expect(alice.maxWaiting == 10 && alice.maxBytes == 1 << 20)
        let batch = policy.rights(of: SystemUser(uid: 1002, name: "job", groups: ["batch"]))
        #expect(batch.maxWaiting == 1000 && batch.maxBytes == nil)
        let other = try ProducerPolicy.parse("alice origin *\n", path: "p")
            .rights(of: SystemUser(uid: 1001, name: "alice", groups: []))
        #expect(other.maxWaiting == nil && other.maxBytes == nil, "no line, no limit")
    }

    @Test func spoolConfNamesThePolicyFileInDefaultOnly() throws {
        let configuration = try SpoolConfiguration.parse("[default]\nproducers = /etc/spool/producers\n", path: "c")
        #expect(configuration.producerPolicyPath == "/etc/spool/producers")
        #expect(throws: ConfigurationError.self) {
            try SpoolConfiguration.parse("[https://a.example]\nproducers = /etc/spool/producers\n", path: "c")
        }
        #expect(throws: ConfigurationError.self) {
            try SpoolConfiguration.parse("[default]\nproducers = producers\n", path: "c")
        }
    }

    @Test func theLaneFilesWhatThePolicyRefusesBeforeAnythingElse() throws {
        let operation = try Self.operation(#"{"method":"PUT","url":"https://api.example.com/a","auth":"billing"}"#)
        let refused = OperationStateMachineTests.decide(operation) {
            $0.producerRights = ProducerPolicy().rights(of: Self.bob)
            $0.originDown = true
        }
        guard case let .fail(reason) = refused else {
            Issue.record("expected a filing, got \(refused)")
            return
        }
        #expect(reason["error"] == "forbidden" && reason["reason"]?.contains("bob (uid 1002)") == true)
        #expect(OperationStateMachineTests.decide(operation) { $0.producerRights = Self.policy.rights(of: Self.alice) } == .waitForRoom)
        #expect(OperationStateMachineTests.decide(operation) == .waitForRoom, "no rights: the spool's owner or root dropped it")
    }

    @Test func aWriteFoldsOnlyIntoItsOwnProducersWrites() {
        func entry(_ id: String, producer: UInt32, creates: Bool = false) -> KeyEntry {
            KeyEntry(
                id: id, folder: .new, name: FileName(id), attempts: 0, orderMicroseconds: 1, creates: creates,
                mergeable: true, producer: producer)
        }
        let bobs = [entry("a", producer: 1002)]
        #expect(FoldDecision.decide(merge: true, delete: false, entries: bobs, producer: 1001, writer: 1001) == nil)
        #expect(FoldDecision.decide(merge: true, delete: false, entries: bobs, producer: 1002, writer: 1002)
            == .merge(bobs[0]))
        #expect(FoldDecision.decide(merge: true, delete: false, entries: bobs, producer: 1002, writer: 0) == nil,
                "the merged file would belong to its writer, not to bob")
        let creates = [entry("c", producer: 1002, creates: true), entry("d", producer: 1001)]
        #expect(FoldDecision.decide(merge: false, delete: true, entries: creates, producer: 1002, writer: 0) == nil,
                "alice's write behind bob's create is not bob's to cancel")
        #expect(FoldDecision.decide(merge: false, delete: true, entries: [creates[0]], producer: 1002, writer: 0)
            == .cancel([creates[0]]))
    }

    @Test func eachProducerHasAnOrderOfTheirOwn() {
        let key = "https://api.example.com/notes/1"
        #expect(RetryState.keyHash(key, scope: nil) == OrderingKey.hash(key), "root's and the owner's: as before")
        #expect(RetryState.keyHash(key, scope: 1001) != RetryState.keyHash(key, scope: nil))
        #expect(RetryState.keyHash(key, scope: 1001) != RetryState.keyHash(key, scope: 1002))
        #expect(RetryState.keyHash(key, scope: 1001) == RetryState.keyHash(key, scope: 1001))
    }
}
