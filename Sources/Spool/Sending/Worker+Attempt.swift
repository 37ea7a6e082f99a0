import Glibc
import Synchronization
import SpoolConfiguration
import SpoolDocument
import SpoolHandlers
import SpoolNames
import SpoolQueue
import SpoolSystem
import SpoolTransport

/// One attempt: sending a claimed operation, and doing what `AttemptDecision` says with the outcome.
extension Worker {
    /// Sends one claimed operation, with the origin's room `ticket`, and acts on the outcome. Returns
    /// whether the lane may go on.
    package func attempt(_ claimed: QueueEntry, _ operation: Operation, ticket: Int?) async -> Bool {
        let outcome: Outcome?
        if let handler = operation.handler {
            outcome = await runHandler(handler, claimed, operation)
        } else if let ticket {
            outcome = await send(claimed, operation, ticket: ticket)
        } else {
            preconditionFailure("a request is sent only with room at its origin")
        }
        guard let outcome else {
            returnUnchanged(claimed)
            return false
        }
        return act(on: outcome, claimed, operation)
    }

    /// Sends one request and says how it went; nil when the system, not the request, failed before sending.
    package func send(_ claimed: QueueEntry, _ operation: Operation, ticket: Int) async -> Outcome? {
        let outcome: Outcome
        do {
            var request = HTTPRequest(operation: operation, id: claimed.id, orderMicroseconds: claimed.state.orderMicroseconds,
                                      userAgent: options.userAgent, profile: try profile(for: operation))
            request.route = options.configuration.settings(for: operation.origin).route
            request.onConnected = { [limits, origin = operation.origin] in limits.connected(origin) }
            state.withLock { $0.summary.attempts += 1 }
            log.detail("sending \(claimed.id): \(operation.method) \(operation.url)")
            guard let transport else { preconditionFailure("Worker.run needs a transport") }
            let result = await transport.send(request)
            // Blocked before the window wakes the lanes waiting behind this request (the origin's probe): they
            // must find the origin blocked, not send.
            if case let .failure(failure) = result, failure.blocksOrigin { state.withLock { $0.blockedOrigins[operation.origin] = failure.token } }
            limits.finish(operation.origin, ticket: ticket, result)
            if case let .failure(.tls(message)) = result {
                // Never retried into success by waiting: an operator must fix a CA, a certificate or a key.
                log.warning("\(claimed.id): TLS error with \(operation.origin): \(message); nothing was sent")
            }
            outcome = Outcome.classify(method: operation.method, result: result, now: Timestamp.now())
        } catch {
            limits.finish(operation.origin, ticket: ticket, nil)
            if case let .unreadable(path, errno) = error, errno.faultClass != .content && errno.faultClass != .vanished {
                // The system, not the profile: nothing was sent, so no attempt is counted.
                record(SpoolFault("read the auth profile", path, errno))
                return nil
            }
            log.warning("\(claimed.id): \(error)")
            outcome = .retry(token: "auth", reason: error.description, retryAfter: nil, blocksOrigin: false)
        }
        return outcome
    }

    /// Carries out what `AttemptDecision` makes of an outcome; returns whether the lane may go on.
    package func act(on outcome: Outcome, _ claimed: QueueEntry, _ operation: Operation) -> Bool {
        let action = AttemptDecision.decide(outcome, state: claimed.state, maxAttempts: operation.maxAttempts,
                                            nowMicroseconds: Timestamp.nowMicroseconds()) { attempts, retryAfter in
            options.backoff.delay(afterAttempts: attempts, retryAfter: retryAfter)
        }
        if operation.handler == nil {
            let kind: DeliveryCounts.Kind = switch action {
            case .complete: .delivered
            case .file(.conflict, _): .conflicted
            case .file: .failed
            case .retry: .deferred
            }
            limits.count(operation.origin, kind, retry: claimed.state.attempts > 0)
        }
        switch action {
        case .complete:
            do { try spool.complete(claimed) } catch {
                record(SpoolFault("remove the delivered operation", spool.displayPath(.cur, claimed.fileName), error))
                strand(claimed)
            }
            log.detail("\(claimed.id): done")
            state.withLock {
                $0.summary.done += 1
                $0.completed.insert(claimed.id)
            }
            return true
        case let .file(destination, reason):
            guard file(claimed, to: destination, reason: reason, operation) else {
                strand(claimed)
                return true
            }
            state.withLock { if destination == .conflict { $0.summary.conflicts += 1 } else { $0.summary.failed += 1 } }
            return true
        case let .retry(next, reason, blocksOrigin, kept):
            // Kept while still claimed: no other worker can finish the operation and leave it behind.
            do throws(Errno) { try spool.keepDeferral(of: claimed.id, kept, at: Timestamp.now()) } catch {
                log.detail("\(claimed.id): the reason of this deferral was not kept: \(error)")
            }
            do throws(Errno) { try lock.withLock { held throws(Errno) in try spool.release(claimed, state: next, held) } } catch where error != .noSuchFileOrDirectory {
                record(SpoolFault("return to new/", spool.displayPath(.cur, claimed.fileName), error))
                strand(claimed)
            } catch {
                // Moved by another worker (recovery of a claim it took for stale): it owns the operation now.
            }
            log.detail("\(claimed.id): \(reason); attempt \(next.attempts), next at \(Timestamp.formatRFC3339(next.dueSeconds))")
            warnIfDelayed(claimed, operation, next: next, reason: reason)
            state.withLock {
                $0.summary.deferred += 1
                $0.parkedKeys.insert(claimed.state.keyHash)
                $0.resumeAt = min($0.resumeAt ?? next.dueSeconds, next.dueSeconds)
                if blocksOrigin, $0.blockedOrigins[operation.origin] == nil { $0.blockedOrigins[operation.origin] = next.lastError ?? "failed" }
            }
            return false
        }
    }

    /// Says once, at the default level, that an operation will not be delivered within `warn-after`.
    package func warnIfDelayed(_ claimed: QueueEntry, _ operation: Operation, next: RetryState, reason: String) {
        guard let warnAfter = options.configuration.settings(for: operation.origin).warnAfter else { return }
        let enqueued = claimed.state.orderMicroseconds / 1_000_000
        guard DelayWarning.due(enqueued: enqueued, previousDue: claimed.state.dueSeconds, nextDue: next.dueSeconds, warnAfter: warnAfter) else { return }
        log.notice("\(claimed.id) (\(operation.summary)): delayed: not delivered \(humanDuration(warnAfter)) after its enqueue at "
            + "\(Timestamp.formatRFC3339(enqueued)); \(next.attempts) attempt(s), last: \(reason); next at \(Timestamp.formatRFC3339(next.dueSeconds))")
    }

    package func profile(for operation: Operation) throws(CredentialError) -> Credentials.Profile {
        guard let profile = operation.auth else { return Credentials.Profile() }
        guard let store = options.credentials else { throw .noDirectory(profile: profile) }
        return try store.profile(profile)
    }

    /// Files an operation in `failed/`; returns whether this worker moved it.
    @discardableResult
    package func fail(_ entry: QueueEntry, from folder: Spool.Folder, reason: FilingReason, _ operation: Operation? = nil) -> Bool {
        guard file(entry, from: folder, to: .failed, reason: reason, operation) else { return false }
        state.withLock { $0.summary.failed += 1 }
        return true
    }

    /// Moves an operation to `failed/` or `conflict/` with its reason; returns whether this worker moved it.
    @discardableResult
    package func file(_ entry: QueueEntry, from folder: Spool.Folder = .cur, to destination: Spool.Folder, reason: FilingReason,
              _ operation: Operation? = nil) -> Bool {
        var fields = reason
        if let last = entry.state.lastError, fields["last-error"] == nil { fields.fields.append(("last-error", last)) }
        // Kept so that `spool-ctl retry` can put the operation back in its original place in the order.
        fields.fields.append(("order", "\(entry.state.orderMicroseconds)"))
        let (moved, fault) = spool.file(entry.fileName, from: folder, to: destination, id: entry.id, reason: fields,
                                        what: operation?.summary, log: log)
        if let fault { record(fault) }
        return moved
    }

    /// Returns a claim to `new/` as it was, and stops its key for the rest of the run.
    package func returnUnchanged(_ claimed: QueueEntry) {
        do throws(Errno) { try lock.withLock { held throws(Errno) in try spool.release(claimed, state: claimed.state, held) } } catch where error != .noSuchFileOrDirectory {
            record(SpoolFault("return to new/", spool.displayPath(.cur, claimed.fileName), error))
            strand(claimed)
        } catch {}
        park(claimed)
    }
}
