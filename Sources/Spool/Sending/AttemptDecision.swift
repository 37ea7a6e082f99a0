import SpoolConfiguration
import SpoolDocument
import SpoolHandlers
import SpoolNames
import SpoolQueue
import SpoolSystem
import SpoolTransport

/// What follows one attempt, decided from its outcome alone: `Worker.attempt` sends, calls `decide`, and
/// carries out the action. Nothing here touches the spool.
package enum AttemptDecision {
    /// What the worker does with the claimed operation.
    package enum Action: Equatable, Sendable {
        /// Done: remove it.
        case complete
        /// File it in `failed/` or `conflict/` with this reason.
        case file(Spool.Folder, FilingReason)
        /// Return it to `new/` with this state, keeping `kept` beside it for `spool-ctl show`; the lane stops,
        /// and the origin too when `blocksOrigin`.
        case retry(RetryState, reason: String, blocksOrigin: Bool, kept: FilingReason)
        /// Return it to `new/` as it was (no attempt counted, no backoff): its origin pushed back, and its key
        /// waits for the origin's rate or pause.
        case giveBack(reason: String)
    }

    /// The action after `outcome` for an operation whose state before the attempt was `state`.
    /// `delay` is the backoff in seconds for a number of attempts and the server's Retry-After.
    package static func decide(_ outcome: Outcome, state: RetryState, maxAttempts: Int?, nowMicroseconds: Int64,
                              delay: (Int, Int64?) -> Int64) -> Action {
        let attempts = state.attempts + 1
        switch outcome {
        case .done:
            return .complete
        case let .pushedBack(_, reason, _, _):
            return .giveBack(reason: reason)
        case let .conflict(fields):
            return .file(.conflict, FilingReason(fields + [Outcome.Field("attempts", "\(attempts)")]))
        case let .failed(fields):
            return .file(.failed, FilingReason(fields + [Outcome.Field("attempts", "\(attempts)")]))
        case let .retry(token, reason, retryAfter, blocksOrigin, details):
            // Out of attempts, the last answer is kept as a rejected one's is: status, ETag, body start.
            if let limit = maxAttempts, attempts >= limit {
                return .file(
                    .failed,
                    FilingReason(
                        [
                            Outcome.Field(
                                "reason", "gave up after \(attempts) attempts (max_attempts); last error: \(reason)")
                        ]
                            + details
                            + [Outcome.Field("attempts", "\(attempts)"), Outcome.Field("last-error", token)]))
            }
            var next = state
            next.attempts = attempts
            next.lastError = token
            // Rounded up to the next whole second: never earlier than the backoff or Retry-After asked for.
            next.dueSeconds = (nowMicroseconds + delay(attempts, retryAfter) * 1_000_000 + 999_999) / 1_000_000
            let kept = FilingReason([Outcome.Field("reason", reason)] + details
                + [Outcome.Field("attempts", "\(attempts)"), Outcome.Field("last-error", token)])
            return .retry(next, reason: reason, blocksOrigin: blocksOrigin, kept: kept)
        }
    }
}
