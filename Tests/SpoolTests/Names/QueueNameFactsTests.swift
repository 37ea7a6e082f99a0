import Testing
@testable import SpoolNames
@testable import SpoolSystem

/// The planner's allocation-free reading of a name (`QueueName.Facts`) agrees with the full parser
/// (`QueueName`) on every name: generated valid ones, and the same with one byte changed.
@Suite struct QueueNameFactsTests {
    /// A small deterministic generator, so that a failure names a seed that repeats it.
    struct Generator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state >> 33
        }
        mutating func pick<T>(_ choices: [T]) -> T { choices[Int(next() % UInt64(choices.count))] }
    }

    static func name(_ g: inout Generator) -> String {
        var state = RetryState(
            orderMicroseconds: Int64(g.next() % 2_000_000_000_000_000), keyHash: g.next() << 31 ^ g.next())
        if g.next() % 2 == 0 { state.originHash = UInt32(truncatingIfNeeded: g.next() | 1) }
        if g.next() % 3 == 0 { state.priority = g.pick([-10, -3, 1, 5, 10]) }
        if g.next() % 2 == 0 { state.attempts = Int(g.next() % 40) }
        if g.next() % 2 == 0 { state.dueSeconds = Int64(g.next() % 2_000_000_000) }
        if g.next() % 2 == 0 { state.lastError = g.pick(["503", "refused", "timeout", "tls", "no-answer"]) }
        if g.next() % 4 == 0 { state.held = true }
        var name = QueueName(
            id: "1764412345.M\(g.next() % 1_000_000)P\(g.next() % 99999)Q1R00ff00ff.host", state: state)
        if g.next() % 3 == 0 {
            name.claim = Claim(
                owner: ProcessIdentity(host: "h.example", pid: Int32(g.next() % 99999), startTicks: g.next()),
                since: 1_764_412_345)
        }
        return name.fileName.string!
    }

    static func facts(_ text: String) -> QueueName.Facts? {
        Array(text.utf8).withUnsafeBufferPointer { QueueName.Facts($0) }
    }

    @Test func factsAgreeWithTheFullParser() {
        var g = Generator(state: 42)
        for _ in 0..<5_000 {
            let text = Self.name(&g)
            guard let full = QueueName(FileName(text)), let state = full.state, let facts = Self.facts(text) else {
                Issue.record("a generated name is refused: \(text)")
                continue
            }
            #expect(
                facts.keyHash == state.keyHash && facts.orderMicroseconds == state.orderMicroseconds
                    && facts.dueSeconds == state.dueSeconds)
            #expect(
                facts.priority == state.priority && facts.originHash == state.originHash && facts.held == state.held)
            #expect(facts.claimed == (full.claim != nil), "\(text)")
            // One byte changed: the fast reader may refuse what the full parser takes (callers then use the
            // full parser), but never takes what it refuses, nor reads it differently.
            var bytes = Array(text.utf8)
            let at = Int(g.next() % UInt64(bytes.count))
            bytes[at] = g.pick(Array(",:=@.x0-gH ".utf8))
            let changed = String(decoding: bytes, as: UTF8.self)
            if let fast = Self.facts(changed) {
                let parsed = QueueName(FileName(bytes: bytes))
                #expect(parsed?.state != nil, "the fast reader takes what the parser refuses: \(changed)")
                if let state = parsed?.state {
                    #expect(
                        fast.keyHash == state.keyHash && fast.dueSeconds == state.dueSeconds && fast.held == state.held,
                        "\(changed)")
                }
            }
        }
    }

    /// What the fuzzer found (Tests/Corpus/fuzz/names): names whose claim only the fast reader took.
    @Test func aBadClaimIsRefusedByBothReaders() {
        for text in [
            "1764412345.M1P2Q3R4.h:o=1,k=0000000000000001@h.example,42,99,176+412345",
            "1764412345.M1P2Q3R4.h:o=1,k=0000000000000001@h.example,42,99",
            "1764412345.M1P2Q3R4.h:o=1,k=0000000000000001@,42,99,1",
        ] {
            #expect(Self.facts(text) == nil && QueueName(FileName(text)) == nil, "\(text)")
        }
        var bytes = Array("1764412345.M1P2Q3R4.h:o=1,k=0000000000000001@h.example,42,99,".utf8)
        bytes += [0xCC, 0xC8, 0x36]
        #expect(bytes.withUnsafeBufferPointer { QueueName.Facts($0) } == nil && QueueName(FileName(bytes: bytes)) == nil)
        #expect(Self.facts("1764412345.M1P2Q3R4.h:o=1,k=0000000000000001@h.example,42,99,1764412345")?.claimed == true)
    }
}
