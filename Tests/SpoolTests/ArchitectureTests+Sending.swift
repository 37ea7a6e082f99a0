import Foundation
import Testing

/// The sender's rules of ARCHITECTURE.md that a grep can check: an operation's life is decided without I/O,
/// and one owner takes delivered claims out of `cur/`.
extension ArchitectureTests {
    /// `OperationStateMachine` decides; `Worker+Operation.swift` carries out. The machine waits for nothing,
    /// takes no lock, touches neither the spool nor the network, and reads no clock: each event brings its time.
    @Test func theOperationStateMachineDoesNoInputOrOutput() throws {
        var found: [String] = []
        for (path, text) in try Self.sources("Sources/Spool/Sending")
        where (path as NSString).lastPathComponent.hasPrefix("OperationStateMachine") {
            found += Self.matches(#"\bawait\b|\bwithLock\b|\bspool\.|\btransport\b|Timestamp\.now|\blimits\."#, in: text)
                .map { "\(path): \($0.trimmingCharacters(in: .whitespaces))" }
        }
        #expect(found.isEmpty, "I/O in the state machine: \(found)")
    }

    /// Only `Remover` completes or retires a claim (a delivered one, or a coalesced one): one owner for the
    /// last step of an operation's life, and for the rules of when a crash may send it again.
    @Test func oneOwnerTakesClaimsOutOfCur() throws {
        var found: [String] = []
        for (path, text) in try Self.sources("Sources/Spool") where !path.hasPrefix("Sources/Spool/Spool/") {
            guard path != "Sources/Spool/Sending/Remover.swift" else { continue }
            found += Self.matches(#"\.(complete|retire)\("#, in: text)
                .map { "\(path): \($0.trimmingCharacters(in: .whitespaces))" }
        }
        #expect(found.isEmpty, "claims taken out of cur/ outside Remover: \(found)")
    }
}
