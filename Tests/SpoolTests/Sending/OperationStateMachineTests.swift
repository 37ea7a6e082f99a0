import Testing
@testable import SpoolDocument
@testable import SpoolNames
@testable import SpoolQueue
@testable import SpoolSending

/// Each rule and each transition of an operation's life (`OperationStateMachine`), from facts alone: no spool,
/// no server.
@Suite struct OperationStateMachineTests {
    typealias Machine = OperationStateMachine
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

    /// A machine for `operation`, its facts changed by `change`; a backoff of a fixed 60 s.
    static func machine(
        _ operation: Operation, entry: QueueEntry = entry(), _ change: (inout Machine.Facts) -> Void = { _ in }
    ) -> Machine {
        var facts = Machine.Facts(
            entry: entry, operation: operation, nowSeconds: nowSeconds, lifetimeSeconds: 5 * 86400,
            backoff: Backoff(minimum: 60, maximum: 60), jitter: 1)
        change(&facts)
        return Machine(facts)
    }

    /// The first action for `operation`.
    static func decide(
        _ operation: Operation, entry: QueueEntry = entry(), _ change: (inout Machine.Facts) -> Void = { _ in }
    ) -> Machine.Action {
        var machine = machine(operation, entry: entry, change)
        return machine.start()
    }

    /// A request's machine brought to `sending`: room granted, claim won (sendable again until `holdUntil`).
    static func sending(_ operation: Operation, entry: QueueEntry = entry(), holdUntil: Int64 = nowSeconds + 60)
        -> Machine
    {
        var machine = machine(operation, entry: entry)
        #expect(machine.start() == .waitForRoom)
        #expect(machine.receive(.room(granted: true, nowSeconds: nowSeconds)) == .claim)
        #expect(machine.receive(.claimed(won: true, holdUntilSeconds: holdUntil)) == .checkClaim)
        #expect(machine.receive(.checked(sameRequest: true)) == .send(again: false))
        #expect(machine.state == .sending)
        return machine
    }

    /// The move after `outcome`, for an operation with `attempts` before it, answered `nowMicroseconds`.
    static func answer(
        _ outcome: Outcome, attempts: Int = 2, maxAttempts: Int? = nil, nowMicroseconds: Int64 = nowSeconds * 1_000_000
    ) throws -> Machine.Action {
        let limit = maxAttempts.map { #", "max_attempts": \#($0)"# } ?? ""
        var machine = sending(try operation(limit), entry: entry(attempts: attempts))
        return machine.receive(.answered(outcome, nowMicroseconds: nowMicroseconds, stopping: false))
    }

    static func reason(_ action: Machine.Action) -> String {
        if case let .fail(reason) = action { return reason["reason"] ?? "" }
        return ""
    }

    @Test func aPlainRequestWaitsForRoomAndAJobIsClaimedAtOnce() throws {
        #expect(Self.decide(try Self.operation()) == .waitForRoom)
        let job = try Operation(bytes: Array(#"{"handler": "mail"}"#.utf8))
        #expect(Self.decide(job) == .claim, "a job takes only its concurrency slot")
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
        #expect(Self.decide(operation) { $0.allowedOrigins = ["https://api.example.com"] } == .waitForRoom)
        #expect(Self.decide(operation) { $0.originDown = true } == .finish(.park(.originDown)))
    }

    @Test func dependencies() throws {
        let operation = try Self.operation(#", "depends_on": ["a"]"#)
        #expect(Self.decide(operation) == .look(.dependencies), "asked for, not looked up by the decision")
        #expect(Self.decide(operation) { $0.dependencies = [.done, .done] } == .waitForRoom)
        #expect(Self.decide(operation) { $0.dependencies = [.done, .queued(id: "a")] } == .finish(.wait))
        #expect(
            Self.reason(Self.decide(operation) { $0.dependencies = [.filed(id: "a", folder: .conflict)] })
                == "depends on a, which is in conflict/")
        #expect(
            Self.reason(Self.decide(operation) { $0.dependencies = [.cycle(through: "b")] }).contains("cycle through b")
        )
        #expect(Self.reason(Self.decide(operation) { $0.dependencies = [.itself] }).contains("depends on itself"))
        var machine = Self.machine(operation)
        #expect(machine.start() == .look(.dependencies))
        #expect(machine.receive(.dependencies([.done])) == .waitForRoom, "the lookup told back")
    }

    @Test func coalescingGivesWayOnlyWhenNeverAttemptedAndTheNextHasItsKey() throws {
        let coalescing = try Self.operation(#", "coalesce": true"#)
        #expect(Self.decide(coalescing) == .look(.nextKey))
        #expect(Self.decide(coalescing) { $0.nextHasSameKey = true } == .coalesce)
        #expect(Self.decide(coalescing) { $0.nextHasSameKey = false } == .waitForRoom)
        #expect(Self.decide(coalescing, entry: Self.entry(attempts: 1)) { $0.nextHasSameKey = true } == .waitForRoom)
        #expect(Self.decide(try Self.operation()) { $0.nextHasSameKey = true } == .waitForRoom)
        var machine = Self.machine(coalescing)
        #expect(machine.start() == .look(.nextKey))
        #expect(machine.receive(.nextKey(same: true)) == .coalesce)
        #expect(machine.receive(.moved(true)) == .finish(.goOn), "the lane goes on to the write that replaced it")
    }

    @Test func nameTooLongToClaimIsFiledAndALostClaimParks() throws {
        #expect(Self.reason(Self.decide(try Self.operation()) { $0.claimSuffixLength = 250 }).contains("too long"))
        var lost = Self.machine(try Self.operation())
        _ = lost.start()
        _ = lost.receive(.room(granted: true, nowSeconds: Self.nowSeconds))
        #expect(lost.receive(.claimed(won: false, holdUntilSeconds: 0)) == .finish(.park(.claimLost)))
        #expect(lost.state == .finished)
    }

    @Test func refusedRoomLeavesItAndAChangedClaimGoesBackUnsent() throws {
        var refused = Self.machine(try Self.operation())
        _ = refused.start()
        #expect(refused.receive(.room(granted: false, nowSeconds: Self.nowSeconds)) == .finish(.leave))
        var changed = Self.machine(try Self.operation())
        _ = changed.start()
        _ = changed.receive(.room(granted: true, nowSeconds: Self.nowSeconds))
        _ = changed.receive(.claimed(won: true, holdUntilSeconds: Self.nowSeconds + 60))
        #expect(changed.receive(.checked(sameRequest: false)) == .unclaim(reason: nil))
        #expect(changed.receive(.moved(true)) == .finish(.park(.claimChanged)))
    }

    @Test func notSentGoesBackAsItWasAndParksItsKey() throws {
        var machine = Self.sending(try Self.operation())
        let action = machine.receive(.answered(nil, nowMicroseconds: Self.nowSeconds * 1_000_000, stopping: false))
        #expect(action == .unclaim(reason: nil))
        #expect(machine.receive(.moved(false)) == .finish(.park(.notSent)))
    }

    @Test func aPushBackGoesAgainUnderItsClaimUntilHalfItsLease() throws {
        let pushed = Outcome.pushedBack(token: "429", reason: "HTTP 429", retryAfter: nil)
        let now = Self.nowSeconds * 1_000_000
        var machine = Self.sending(try Self.operation(), holdUntil: Self.nowSeconds + 30)
        #expect(machine.receive(.answered(pushed, nowMicroseconds: now, stopping: false)) == .waitForRoom)
        #expect(machine.state == .pushedBack(pushed))
        #expect(machine.receive(.room(granted: true, nowSeconds: Self.nowSeconds + 1)) == .send(again: true))
        #expect(machine.receive(.answered(pushed, nowMicroseconds: now, stopping: false)) == .waitForRoom)
        // Room granted past the hold: back as it was, for the origin's rate; the lane leaves the key.
        #expect(machine.receive(.room(granted: true, nowSeconds: Self.nowSeconds + 30)) == .unclaim(reason: "HTTP 429"))
        #expect(machine.receive(.moved(true)) == .finish(.leave))
        var stopping = Self.sending(try Self.operation())
        #expect(stopping.receive(.answered(pushed, nowMicroseconds: now, stopping: true)) == .unclaim(reason: "HTTP 429"))
        var late = Self.sending(try Self.operation(), holdUntil: Self.nowSeconds)
        #expect(late.receive(.answered(pushed, nowMicroseconds: now, stopping: false)) == .unclaim(reason: "HTTP 429"))
    }

    @Test func movesEndTheLifeAndAMoveNotMadeParksTheKey() throws {
        var delivered = Self.sending(try Self.operation())
        #expect(delivered.receive(.answered(.done, nowMicroseconds: 0, stopping: false)) == .complete)
        #expect(delivered.state == .moving(.completing))
        #expect(delivered.receive(.moved(true)) == .finish(.goOn))
        var stuck = Self.sending(try Self.operation())
        _ = stuck.receive(.answered(.done, nowMicroseconds: 0, stopping: false))
        #expect(stuck.receive(.moved(false)) == .finish(.park(.notMoved)), "still in cur/: the key waits")
        var deferred = Self.sending(try Self.operation())
        let retry = Outcome.retry(token: "500", reason: "HTTP 500", retryAfter: nil, takesOriginDown: false)
        guard case .deferral = deferred.receive(.answered(retry, nowMicroseconds: 0, stopping: false)) else {
            Issue.record("a 500 is deferred")
            return
        }
        #expect(deferred.receive(.moved(true)) == .finish(.stop), "its name says when it goes again")
    }

    @Test func attemptOutcomes() throws {
        #expect(try Self.answer(.done) == .complete)
        let conflict = try Self.answer(.conflict(reason: [Outcome.Field("status", "409")]))
        #expect(conflict == .file(.conflict, FilingReason([("status", "409"), ("attempts", "3")])))
        let failed = try Self.answer(.failed(reason: [Outcome.Field("status", "400")]))
        #expect(failed == .file(.failed, FilingReason([("status", "400"), ("attempts", "3")])))
        let retry = Outcome.retry(token: "503", reason: "HTTP 503", retryAfter: 120, takesOriginDown: false)
        guard case let .deferral(next, _, blocks, _) = try Self.answer(retry, nowMicroseconds: 1_500_000) else {
            Issue.record("a 503 is retried")
            return
        }
        #expect(next.attempts == 3 && next.lastError == "503" && !blocks)
        #expect(next.dueSeconds == 122, "Retry-After from now, rounded up to the next second")
        guard case let .file(folder, reason) = try Self.answer(retry, maxAttempts: 3) else {
            Issue.record("max_attempts reached files it")
            return
        }
        #expect(folder == .failed && reason["reason"]?.contains("max_attempts") == true && reason["attempts"] == "3")
    }
}
