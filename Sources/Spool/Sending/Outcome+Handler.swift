import SpoolHandlers

/// A handler's exit status in sysexits terms, as Postfix's pipe(8) reads a delivery agent's.
extension Outcome {
    /// The exit status by which a handler says "conflict: a human must decide" (sysexits leaves 3 unused).
    package static let conflictExitStatus: Int32 = 3
    /// EX_TEMPFAIL: try again later.
    package static let temporaryExitStatus: Int32 = 75

    /// Decides the outcome of one handler run: 0 done; 75, a signal or the timeout retried; 3 a conflict;
    /// any other status failed, with the end of standard error.
    package static func classify(handler name: String, _ result: HandlerProcess.Result, timeout: Double) -> Outcome {
        let said = result.errors.lastLines(5)
        let stderr = said.isEmpty ? [] : [Field("stderr", said)]
        let lastLine = said.split(separator: "\n").last.map { ": \($0)" } ?? ""
        switch result.ending {
        case .exited(0):
            return .done
        case .exited(temporaryExitStatus):
            return .retry(
                token: "tempfail", reason: "handler \(name) exited 75 (EX_TEMPFAIL)\(lastLine)", retryAfter: nil,
                takesOriginDown: false)
        case let .signaled(signal):
            return .retry(
                token: "signal", reason: "handler \(name) was killed by signal \(signal)\(lastLine)", retryAfter: nil,
                takesOriginDown: false)
        case .timedOut:
            return .retry(
                token: "timeout", reason: "handler \(name) ran past --timeout (\(Int(timeout)) s) and was stopped",
                retryAfter: nil, takesOriginDown: false)
        case .unknown:
            // Like a lost answer: it may have run, so it runs again with the same idempotency key.
            return .retry(
                token: "lost", reason: "the exit status of handler \(name) could not be read", retryAfter: nil,
                takesOriginDown: false)
        case .exited(conflictExitStatus):
            return .conflict(
                reason: [
                    Field("reason", "handler \(name) reported a conflict (exit 3): a human must decide"),
                    Field("exit-status", "3")
                ] + stderr)
        case let .exited(status):
            return .failed(
                reason: [Field("reason", "handler \(name) failed (exit \(status))"), Field("exit-status", "\(status)")]
                    + stderr)
        }
    }
}
