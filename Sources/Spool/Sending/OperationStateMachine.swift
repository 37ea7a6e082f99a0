import SpoolNames
import SpoolQueue

/// The life of one operation in its lane, from its reading to the move that ends it there, in the manner of
/// swift-nio's state machines: an explicit `State`, events in (`receive`), actions out, exhaustive switches.
/// `Worker.live` carries out each action and tells what came of it; nothing here touches the spool or the
/// network, so that every rule of a lane and of an attempt is tested from facts alone
/// (`OperationStateMachineTests`).
///
///     deciding ──→ waitingForRoom ──→ claiming ──→ checkingClaim ──→ sending ──→ moving ──→ finished
///        │  (a job skips the room)                                   ↑      │
///        │                                                            └ pushedBack (429, 503: room again)
///        └──→ moving (filed before a claim, coalesced) or finished (waits, parked)
///
/// Every path ends in `finished` with a `Finish`: what the lane does next.
package struct OperationStateMachine {
    /// Where the operation is in its life.
    package enum State: Equatable, Sendable {
        /// Read from `new/`: whether and how it goes is being decided; a lookup may be out.
        case deciding
        /// To be sent: waiting for room at its origin. A job, which takes only its concurrency slot, skips it.
        case waitingForRoom
        /// Room had: being claimed. Room is never held while waiting for a claim, nor a claim while waiting
        /// for room.
        case claiming
        /// Claimed: its file is checked to be still what was read (a merge may have changed it).
        case checkingClaim
        /// Claimed and sent: the answer is awaited.
        case sending
        /// Claimed and pushed back by its origin (429, 503): waiting for room to go again under its claim.
        case pushedBack(Outcome)
        /// A move that ends its life in the lane is being made.
        case moving(Move)
        /// Its life in the lane is over.
        case finished
    }

    /// The move an operation is making, and what follows it.
    package enum Move: Equatable, Sendable {
        /// Filed from `new/` before any claim (not allowed, expired, a dependency filed, a name too long).
        case failing
        /// Removed: the lane's next operation replaces it.
        case coalescing
        /// Delivered: taken out of `cur/`.
        case completing
        /// Filed from `cur/` after its answer.
        case filing
        /// Given back to `new/` with one more attempt and its next time.
        case deferring
        /// Given back to `new/` as it was; then the lane does `then`.
        case unclaiming(then: Finish)
    }

    /// What the lane does once an operation's life in it is over.
    package enum Finish: Equatable, Sendable {
        /// The key's next operation.
        case goOn
        /// Stops for now: a dependency is still queued.
        case wait
        /// Stops, and the key waits for the rest of the run.
        case park(ParkReason)
        /// Stops, leaving the operation where its origin's pause, a stop or its origin down holds it: parked
        /// unless only its own share's pause holds it (`Worker.leave`).
        case leave
        /// Stops: its name says when it goes again (deferred).
        case stop
    }

    /// Why a key waits for the rest of the run.
    package enum ParkReason: Equatable, Sendable {
        /// Its origin failed at the transport level in this run.
        case originDown
        /// Another worker won the claim, and owns the rest of the key.
        case claimLost
        /// The claimed file became another request than the one decided on, or could not be read again.
        case claimChanged
        /// The system failed before sending: nothing was sent.
        case notSent
        /// A move this worker had to make did not happen (a fault, or another worker moved the file).
        case notMoved
    }

    /// A fact that costs I/O, for the worker to look up before the machine decides.
    package enum Lookup: Equatable, Sendable {
        /// Where each `depends_on` id is.
        case dependencies
        /// The key of the lane's next operation.
        case nextKey
    }

    /// What one `depends_on` id turned out to be, gathered by the worker in order.
    package enum Dependency: Equatable, Sendable {
        /// Done in this run, or found nowhere (done before).
        case done
        /// Filed in `failed/` or `conflict/`: this one can never be right.
        case filed(id: String, folder: Spool.Folder)
        /// Still queued: wait for it.
        case queued(id: String)
        /// Still queued, and its own dependencies lead back here.
        case cycle(through: String)
        /// The operation names its own id.
        case itself
    }

    /// What the worker tells the machine.
    package enum Event: Equatable, Sendable {
        /// The dependencies it asked for (`Lookup.dependencies`).
        case dependencies([Dependency])
        /// Whether the lane's next operation has this one's key and producer (`Lookup.nextKey`).
        case nextKey(same: Bool)
        /// Room at the origin was granted, or refused (a pause, a stop, the origin down meanwhile).
        case room(granted: Bool, nowSeconds: Int64)
        /// The claim was won or lost; a won claim may be sent again after a push-back until `holdUntilSeconds`.
        case claimed(won: Bool, holdUntilSeconds: Int64)
        /// The claimed file still holds the request decided on (perhaps merged into), or not.
        case checked(sameRequest: Bool)
        /// The answer, or nil when the system failed before sending; whether a stop was asked meanwhile.
        case answered(Outcome?, nowMicroseconds: Int64, stopping: Bool)
        /// The move asked for was made by this worker, or not.
        case moved(Bool)
    }

    /// What the worker does next.
    package enum Action: Equatable, Sendable {
        /// Look this up and tell the machine.
        case look(Lookup)
        /// Wait for room at the operation's origin.
        case waitForRoom
        /// Claim it (`new/` → `cur/`).
        case claim
        /// Check that the claimed file is still what was read.
        case checkClaim
        /// Send it, with the room it holds; `again` after a push-back.
        case send(again: Bool)
        /// File it from `new/` in `failed/` with this reason.
        case fail(FilingReason)
        /// Remove it: the lane's next operation replaces it (same key, never attempted).
        case coalesce
        /// Take the delivered claim out of `cur/`.
        case complete
        /// File the claim in `failed/` or `conflict/` with this reason.
        case file(Spool.Folder, FilingReason)
        /// Give the claim back with this next state, keeping `kept` beside it for `spool-ctl show`; its origin
        /// is down for the rest of the run when `takesOriginDown`.
        case deferral(RetryState, reason: String, takesOriginDown: Bool, kept: FilingReason)
        /// Give the claim back as it was: no attempt counted, no backoff. `reason` is the push-back's, nil when
        /// the claim goes back unsent (the system failed, or the file changed into another request).
        case unclaim(reason: String?)
        /// Its life in the lane is over; the lane does this.
        case finish(Finish)
    }

    /// Where the operation is.
    package private(set) var state: State = .deciding
    /// What the decisions look at; lookups fill it in.
    package private(set) var facts: Facts
    /// Until when a pushed-back claim may be sent again (epoch seconds), from the claim.
    private var holdUntilSeconds: Int64 = 0

    /// The machine of one operation read from `new/`.
    package init(_ facts: Facts) { self.facts = facts }

    /// The first action: what the lane does with the operation it read.
    package mutating func start() -> Action {
        guard case .deciding = state else { preconditionFailure("an operation's life starts once") }
        return decide()
    }

    /// The next action after `event`.
    package mutating func receive(_ event: Event) -> Action {
        switch (state, event) {
        case let (.deciding, .dependencies(found)):
            facts.dependencies = found
            return decide()
        case let (.deciding, .nextKey(same)):
            facts.nextHasSameKey = same
            return decide()
        case let (.waitingForRoom, .room(granted, _)):
            return granted ? go(.claiming, .claim) : finish(.leave)
        case let (.claiming, .claimed(won, holdUntil)):
            holdUntilSeconds = holdUntil
            return won ? go(.checkingClaim, .checkClaim) : finish(.park(.claimLost))
        case let (.checkingClaim, .checked(same)):
            return same ? go(.sending, .send(again: false)) : unclaim(nil, then: .park(.claimChanged))
        case let (.sending, .answered(outcome, nowMicroseconds, stopping)):
            guard let outcome else { return unclaim(nil, then: .park(.notSent)) }
            if case .pushedBack = outcome, !facts.isJob, !stopping, nowMicroseconds / 1_000_000 < holdUntilSeconds {
                return go(.pushedBack(outcome), .waitForRoom)
            }
            return afterAnswer(outcome, nowMicroseconds: nowMicroseconds)
        case let (.pushedBack(outcome), .room(granted, nowSeconds)):
            // Room may come late: past the claim's half lease, the operation goes back as it was.
            guard granted, nowSeconds < holdUntilSeconds else {
                return afterAnswer(outcome, nowMicroseconds: nowSeconds * 1_000_000)
            }
            return go(.sending, .send(again: true))
        case let (.moving(move), .moved(made)):
            switch move {
            case .failing, .coalescing, .completing, .filing: return finish(made ? .goOn : .park(.notMoved))
            case .deferring: return finish(.stop)
            case let .unclaiming(then): return finish(then)
            }
        default:
            preconditionFailure("\(event) cannot happen to an operation \(state)")
        }
    }

    /// Moves to `next` and asks for `action`.
    private mutating func go(_ next: State, _ action: Action) -> Action {
        state = next
        return action
    }

    /// Ends the operation's life in the lane.
    private mutating func finish(_ how: Finish) -> Action { go(.finished, .finish(how)) }

    /// Gives the claim back as it was, then finishes `then`.
    private mutating func unclaim(_ reason: String?, then: Finish) -> Action {
        go(.moving(.unclaiming(then: then)), .unclaim(reason: reason))
    }

    /// The lane's rules applied to the facts so far (`rule`), carried into the state they lead to.
    private mutating func decide() -> Action {
        switch rule() {
        case let .look(what): return .look(what)
        case .claim: return facts.isJob ? go(.claiming, .claim) : go(.waitingForRoom, .waitForRoom)
        case let .fail(reason): return go(.moving(.failing), .fail(reason))
        case .coalesce: return go(.moving(.coalescing), .coalesce)
        case let .finish(how): return finish(how)
        }
    }

    /// The move an answer calls for (`answerRule`), carried into its state.
    private mutating func afterAnswer(_ outcome: Outcome, nowMicroseconds: Int64) -> Action {
        let action = answerRule(outcome, nowMicroseconds: nowMicroseconds)
        switch action {
        case .complete: return go(.moving(.completing), action)
        case .file: return go(.moving(.filing), action)
        case .deferral: return go(.moving(.deferring), action)
        case let .unclaim(reason): return unclaim(reason, then: .leave)
        default: preconditionFailure("an answer leads to a move, not to \(action)")
        }
    }
}
