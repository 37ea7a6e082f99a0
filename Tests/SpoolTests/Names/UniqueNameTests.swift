import Glibc
import Testing
@testable import SpoolSystem
@testable import SpoolNames

/// Maildir-style ids: their grammar, their order stamp, and that they never repeat or go backwards in a process.
@Suite struct UniqueNameTests {
    /// The parts of `SECONDS.MMICROSPPIDQSEQRRANDOM.HOST`, or nil when the id does not have that shape.
    static func parts(_ id: String) throws
        -> (seconds: Int64, micros: Int64, pid: Int32, sequence: Int, host: String)? {
        let grammar = try Regex(#"([0-9]+)\.M([0-9]{6})P([0-9]+)Q([0-9]+)R[0-9a-f]{8}\.(.+)"#)
        guard let match = id.wholeMatch(of: grammar),
              let seconds = match.output[1].substring.flatMap({ Int64($0) }),
              let micros = match.output[2].substring.flatMap({ Int64($0) }),
              let pid = match.output[3].substring.flatMap({ Int32($0) }),
              let sequence = match.output[4].substring.flatMap({ Int($0) }),
              let host = match.output[5].substring else { return nil }
        return (seconds, micros, pid, sequence, String(host))
    }

    @Test func idsFollowTheGrammarAndCarryTheirOrderStamp() throws {
        let before = Timestamp.nowMicroseconds()
        let (id, order) = UniqueName.next(host: "h.example")
        let parts = try #require(try Self.parts(id), "\(id)")
        #expect(parts.seconds == order / 1_000_000 && parts.micros == order % 1_000_000, "\(id) \(order)")
        #expect(parts.pid == getpid() && parts.host == "h.example")
        #expect(order >= before)
        #expect(OperationID.isValid(id))
        #expect(UniqueName.next().id.hasSuffix("." + ProcessIdentity.current.host), "this host by default")
    }

    @Test func consecutiveIdsAreUniqueAndStrictlyOrdered() throws {
        var ids: Set<String> = [], last: (order: Int64, sequence: Int) = (0, 0), backwards = 0
        for _ in 0..<2000 {
            let (id, order) = UniqueName.next(host: "h")
            let sequence = try #require(try Self.parts(id)?.sequence)
            if order <= last.order || sequence <= last.sequence { backwards += 1 }
            last = (order, sequence)
            ids.insert(id)
        }
        #expect(ids.count == 2000)
        #expect(backwards == 0)
    }

    @Test func concurrentCallersNeverShareAnIdOrAnOrder() async {
        let results = await withTaskGroup(of: [(String, Int64)].self) { group in
            for _ in 0..<8 { group.addTask { (0..<250).map { _ in UniqueName.next(host: "h") } } }
            var all: [(String, Int64)] = []
            for await batch in group { all += batch }
            return all
        }
        #expect(results.count == 2000)
        #expect(Set(results.map(\.0)).count == 2000)
        #expect(Set(results.map(\.1)).count == 2000, "each id takes its own microsecond")
    }

    @Test func aLongHostIsCutToTheLongestId() throws {
        let host = String(repeating: "h", count: 200)
        let (id, _) = UniqueName.next(host: host)
        #expect(id.utf8.count == OperationID.maxLength)
        #expect(OperationID.isValid(id))
        let cut = try #require(try Self.parts(id)?.host)
        #expect(!cut.isEmpty && cut.count < host.count && cut.allSatisfy { $0 == "h" }, "\(id)")
    }

    @Test func anIdIsValidWhateverTheHostNameEndsIn() {
        // `hostname box.why` is a legal host name; an id ending in .why is refused as an operation id, so every
        // operation enqueued on that host would be filed in failed/ by the next run.
        let (id, _) = UniqueName.next(host: "box.why")
        #expect(OperationID.isValid(id), "\(id)")
    }
}
