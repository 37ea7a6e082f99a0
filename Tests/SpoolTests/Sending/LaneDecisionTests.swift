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

/// Each branch of the lane decision and of the attempt decision, from facts alone: no spool, no server.
@Suite struct LaneDecisionTests {
    static let nowSeconds: Int64 = 1_800_000_000

    static func entry(id: String = "op", attempts: Int = 0, enqueuedSecondsAgo: Int64 = 10, lastError: String? = nil)
        -> QueueEntry
    {
        let state = RetryState(
            orderMicroseconds: (nowSeconds - enqueuedSecondsAgo) * 1_000_000, keyHash: 1, attempts: attempts,
            lastError: lastError)
        let name = QueueName(id: id, state: state)
        return QueueEntry(fileName: name.fileName, name: name)
    }

    static func operation(_ extra: String = "") throws -> Operation {
        try Operation(bytes: Array(#"{"method": "PUT", "url": "https://api.example.com/notes/1"\#(extra)}"#.utf8))
    }

    static func decide(
        _ operation: Operation, entry: QueueEntry = entry(), _ change: (inout LaneDecision.Facts) -> Void = { _ in }
    ) -> LaneDecision.Action {
        var facts = LaneDecision.Facts(
            entry: entry, operation: operation, nowSeconds: nowSeconds, lifetimeSeconds: 5 * 86400)
        change(&facts)
        return LaneDecision.decide(facts)
    }

    static func reason(_ action: LaneDecision.Action) -> String {
        if case let .fail(reason) = action { return reason["reason"] ?? "" }
        return ""
    }

    @Test func aPlainOperationIsClaimed() throws {
        #expect(Self.decide(try Self.operation()) == .claim)
    }

    @Test func expiredAndTooOldAreFiled() throws {
        // Decided before any dependency is looked up (facts.dependencies stays nil): that lookup costs I/O and
        // could meet a fault.
        let expired = Self.decide(try Self.operation(#", "expires_at": "2020-01-01T00:00:00Z", "depends_on": ["a"]"#))
        #expect(Self.reason(expired).contains("expires_at"))
        let old = Self.decide(
            try Self.operation(), entry: Self.entry(attempts: 3, enqueuedSecondsAgo: 6 * 86400, lastError: "503"))
        #expect(Self.reason(old).contains("queue lifetime"))
        if case let .fail(reason) = old {
            #expect(reason["attempts"] == "3" && reason["last-error"] == "503")
        }
    }

    @Test func originsNotAllowedAreFiledAndBlockedOnesPark() throws {
        let operation = try Self.operation()
        #expect(
            Self.reason(Self.decide(operation) { $0.allowedOrigins = ["https://other.example.com"] }).contains(
                "not allowed"))
        #expect(Self.decide(operation) { $0.allowedOrigins = ["https://api.example.com"] } == .claim)
        #expect(Self.decide(operation) { $0.originBlocked = true } == .park(.originBlocked))
    }

    @Test func dependencies() throws {
        let operation = try Self.operation(#", "depends_on": ["a"]"#)
        #expect(Self.decide(operation) == .look(.dependencies), "asked for, not looked up by the decision")
        #expect(Self.decide(operation) { $0.dependencies = [.done, .done] } == .claim)
        #expect(Self.decide(operation) { $0.dependencies = [.done, .queued(id: "a")] } == .wait)
        #expect(
            Self.reason(Self.decide(operation) { $0.dependencies = [.filed(id: "a", folder: .conflict)] })
                == "depends on a, which is in conflict/")
        #expect(
            Self.reason(Self.decide(operation) { $0.dependencies = [.cycle(through: "b")] }).contains("cycle through b")
        )
        #expect(Self.reason(Self.decide(operation) { $0.dependencies = [.itself] }).contains("depends on itself"))
    }

    @Test func coalescingGivesWayOnlyWhenNeverAttemptedAndTheNextHasItsKey() throws {
        let coalescing = try Self.operation(#", "coalesce": true"#)
        #expect(Self.decide(coalescing) == .look(.nextKey))
        #expect(Self.decide(coalescing) { $0.nextHasSameKey = true } == .coalesce)
        #expect(Self.decide(coalescing) { $0.nextHasSameKey = false } == .claim)
        #expect(Self.decide(coalescing, entry: Self.entry(attempts: 1)) { $0.nextHasSameKey = true } == .claim)
        #expect(Self.decide(try Self.operation()) { $0.nextHasSameKey = true } == .claim)
    }

    @Test func nameTooLongToClaimIsFiledAndALostClaimParks() throws {
        #expect(Self.reason(Self.decide(try Self.operation()) { $0.claimSuffixLength = 250 }).contains("too long"))
        #expect(LaneDecision.afterClaim(won: false) == .park(.claimLost))
        #expect(LaneDecision.afterClaim(won: true) == .claim)
    }

    @Test func attemptOutcomes() {
        let state = RetryState(orderMicroseconds: 1, keyHash: 1, attempts: 2)
        let fixed: (Int, Int64?) -> Int64 = { _, retryAfter in retryAfter ?? 60 }
        #expect(
            AttemptDecision.decide(.done, state: state, maxAttempts: nil, nowMicroseconds: 0, delay: fixed) == .complete
        )
        let conflict = AttemptDecision.decide(
            .conflict(reason: [Outcome.Field("status", "409")]), state: state, maxAttempts: nil, nowMicroseconds: 0,
            delay: fixed)
        #expect(conflict == .file(.conflict, FilingReason([("status", "409"), ("attempts", "3")])))
        let failed = AttemptDecision.decide(
            .failed(reason: [Outcome.Field("status", "400")]), state: state, maxAttempts: nil, nowMicroseconds: 0,
            delay: fixed)
        #expect(failed == .file(.failed, FilingReason([("status", "400"), ("attempts", "3")])))
        let retry = Outcome.retry(token: "503", reason: "HTTP 503", retryAfter: 120, blocksOrigin: false)
        guard
            case let .retry(next, _, blocks, _) = AttemptDecision.decide(
                retry, state: state, maxAttempts: nil, nowMicroseconds: 1_500_000, delay: fixed)
        else {
            Issue.record("a 503 is retried")
            return
        }
        #expect(next.attempts == 3 && next.lastError == "503" && !blocks)
        #expect(next.dueSeconds == 122, "Retry-After from now, rounded up to the next second")
        let givenUp = AttemptDecision.decide(retry, state: state, maxAttempts: 3, nowMicroseconds: 0, delay: fixed)
        guard case let .file(folder, reason) = givenUp else {
            Issue.record("max_attempts reached files it")
            return
        }
        #expect(folder == .failed && reason["reason"]?.contains("max_attempts") == true && reason["attempts"] == "3")
    }
}
