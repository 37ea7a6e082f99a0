import Glibc
import SpoolConfiguration
import SpoolDocument
import SpoolHandlers
import SpoolNames
import SpoolQueue
import SpoolSystem
import SpoolTransport

/// One attempt: sending a claimed operation, or running its job, and saying how it went.
extension Worker {
    /// Sends one claimed operation with the origin's room `ticket`, or runs its handler's job; nil when the
    /// system, not the operation, failed before sending.
    package func attempt(_ claimed: QueueEntry, _ operation: Operation, ticket: Int?) async -> Outcome? {
        if let handler = operation.handler { return await runHandler(handler, claimed, operation) }
        guard let ticket else { preconditionFailure("a request is sent only with room at its origin") }
        return await send(claimed, operation, ticket: ticket)
    }

    /// Until when a pushed-back operation may be sent again under its claim (epoch seconds): half a lease from
    /// the claim, and never so late that the request, given its whole `--timeout`, could end past the lease.
    func pushBackLimit(_ claimed: QueueEntry) -> Int64 {
        let claimedAt = claimed.name.claim?.since ?? Timestamp.nowSeconds()
        return min(claimedAt + max(1, options.leaseSeconds / 2), lastRequestStart(claimed))
    }

    /// The last time (epoch seconds) a request may start under `claimed`'s claim and, given all of
    /// `--timeout`, still end inside the lease: after it another host may take the claim for a dead worker's.
    func lastRequestStart(_ claimed: QueueEntry) -> Int64 {
        let claimedAt = claimed.name.claim?.since ?? Timestamp.nowSeconds()
        return claimedAt + options.leaseSeconds - Int64(options.timeoutSeconds.rounded(.up))
    }

    /// Sends one request and says how it went; nil when the system, not the request, failed before sending.
    package func send(_ claimed: QueueEntry, _ operation: Operation, ticket: Int) async -> Outcome? {
        let outcome: Outcome
        let share = share(operation)
        var payload: FileDescriptor?
        defer { payload?.close() }
        // This attempt's span in the write's trace: a new one each time, said with -v to find it in the server's log.
        let spanID = operation.trace.map { _ in TraceContext.newSpanID() }
        do {
            var request = HTTPRequest(
                operation: operation, id: claimed.id, orderMicroseconds: claimed.state.orderMicroseconds,
                userAgent: options.userAgent, profile: try profile(for: operation), spanID: spanID)
            request.route = settings(for: operation.origin).route
            request.onConnected = { [limits] in limits.connected(share) }
            if let span = operation.payload {
                switch openPayload(claimed, span) {
                case let .opened(fd): payload = fd
                case let .refused(outcome):
                    limits.finish(share, ticket: ticket, nil)
                    return outcome
                }
                request.bodyFile = BodyFile(descriptor: payload!.rawValue, offset: span.offset, length: span.length)
                request.onProgress = options.uploadProgress(claimed.id, length: span.length)
            }
            state.withLock { $0.summary.attempts += 1 }
            log.detail(
                "sending \(claimed.id): \(operation.method) \(operation.url)"
                    + (operation.trace.map { " (trace \($0.traceID), span \(spanID!))" } ?? ""),
                LogFields(claimed, operation, spanID: spanID))
            guard let transport else { preconditionFailure("Worker.run needs a transport") }
            let keeper = payload.map { keepClaimAlive($0) }
            let result = await transport.send(request)
            if request.onProgress != nil { options.progress?.finish(claimed.id) }
            keeper?.cancel()
            return settle(result, claimed, operation, share: share, ticket: ticket)
        } catch {
            limits.finish(share, ticket: ticket, nil)
            if case let .unreadable(path, errno) = error, errno.faultClass != .content && errno.faultClass != .vanished
            {
                // The system, not the profile: nothing was sent, so no attempt is counted.
                record(SystemCallError("read the auth profile", path, errno))
                return nil
            }
            if case .wrongOrigin = error {
                // Waiting cannot make it right: the document names the URL, the profile the origins it allows.
                return .failed(reason: [Outcome.Field("reason", error.description), Outcome.Field("error", "auth")])
            }
            log.warning("\(claimed.id): \(error)")
            outcome = .retry(token: "auth", reason: error.description, retryAfter: nil, takesOriginDown: false)
        }
        return outcome
    }

    /// What a request's `result` makes of its operation, its origin's window told; nil for a fault of the system.
    func settle(_ result: Result<HTTPResponse, TransportError>, _ claimed: QueueEntry, _ operation: Operation,
                share: String, ticket: Int) -> Outcome? {
        if case .failure(.bodyUnreadable) = result, let span = operation.payload,
           case let .refused(outcome) = openPayload(claimed, span) {
            // The file shrank under the upload: the operation is filed, never retried short.
            limits.finish(share, ticket: ticket, result)
            return outcome
        }
        // Down before the window wakes the lanes waiting behind this request (the origin's probe): they
        // must find the origin down, not send.
        if case let .failure(failure) = result, failure.takesOriginDown {
            unreachable(operation.origin, failure.token)
        }
        limits.finish(share, ticket: ticket, result)
        if case let .failure(.tls(message)) = result {
            // Never retried into success by waiting: an operator must fix a CA, a certificate or a key.
            log.warning("\(claimed.id): TLS error with \(operation.origin): \(message); nothing was sent",
                        LogFields(claimed, operation))
        }
        return Outcome.classify(method: operation.method, result: result, nowSeconds: Timestamp.nowSeconds())
    }

    /// What opening a claimed operation's payload gave: the file to stream, or the outcome instead (`nil`: a
    /// fault of the system, the claim returned unchanged).
    package enum PayloadOpening {
        case opened(FileDescriptor)
        case refused(Outcome?)
    }

    /// Opens the payload of a claimed operation, checking that the file still holds all of it.
    package func openPayload(_ claimed: QueueEntry, _ span: PayloadSpan) -> PayloadOpening {
        do {
            return .opened(try spool.openPayload(claimed, span))
        } catch {
            switch error {
            case let .rejected(rejection):
                return .refused(.failed(reason: [Outcome.Field("reason", rejection.description),
                                                 Outcome.Field("error", rejection.token)]))
            case let .fault(fault):
                record(fault)
                return .refused(nil)
            case .twin:
                return .refused(nil)
            }
        }
    }

    /// Touches a claimed file while its payload is sent, a quarter of `--lease` apart, so that another host's
    /// recovery sees its worker alive however long the upload takes (`recoverStaleClaims` counts the claim's
    /// age from the later of its stamp and the file's modification time).
    package func keepClaimAlive(_ fd: FileDescriptor) -> Task<Void, Never> {
        let interval = UInt64(max(1, options.leaseSeconds / 4)) * 1_000_000_000
        return Task {
            while !Task.isCancelled {
                try? await Task.sleep(nanoseconds: interval)
                if Task.isCancelled { return }
                try? fd.touch()
            }
        }
    }

    /// Says once, at the default level, that an operation will not be delivered within `warn-after`.
    package func warnIfDelayed(_ claimed: QueueEntry, _ operation: Operation, next: RetryState, reason: String) {
        guard let warnAfterSeconds = settings(for: operation.origin).warnAfterSeconds else {
            return
        }
        let enqueued = claimed.state.orderMicroseconds / 1_000_000
        guard
            DelayWarning.due(
                enqueued: enqueued, previousDue: claimed.state.dueSeconds, nextDue: next.dueSeconds,
                warnAfterSeconds: warnAfterSeconds)
        else { return }
        log.notice(
            "\(claimed.id) (\(operation.summary)): delayed: not delivered \(humanDuration(warnAfterSeconds)) after its "
                + "enqueue at "
                + "\(Timestamp.formatRFC3339(enqueued)); \(next.attempts) attempt(s), last: \(reason); next at "
                    + "\(Timestamp.formatRFC3339(next.dueSeconds))", LogFields(claimed, operation, outcome: "deferred")
        )
    }

    /// The auth profile the operation names, or an empty one when it names none; throws when no auth directory
    /// is set, the profile cannot be used, or it may not be sent to the operation's origin.
    package func profile(for operation: Operation) throws(CredentialError) -> Credentials.Profile {
        guard let profile = operation.auth else { return Credentials.Profile() }
        guard let store = options.credentials else { throw .noDirectory(profile: profile) }
        return try store.profile(profile, for: operation.origin)
    }

    /// Moves an operation to `failed/` or `conflict/` with its reason, counted in the run's summary; returns
    /// whether this worker moved it. A claim that could not be filed for a fault stays stranded until
    /// housekeeping returns it, and is decided again.
    @discardableResult
    package func file(
        _ entry: QueueEntry, from folder: Spool.Folder, to destination: Spool.Folder, reason: FilingReason,
        _ operation: Operation? = nil
    ) -> Bool {
        var fields = reason
        if let last = entry.state.lastError, fields["last-error"] == nil { fields.fields.append(("last-error", last)) }
        // Kept so that `spool-ctl retry` can put the operation back in its original place in the order.
        fields.fields.append(("order", "\(entry.state.orderMicroseconds)"))
        let filed = spool.file(
            entry.fileName, from: folder, to: destination, id: entry.id, reason: fields, what: operation?.summary,
            about: operation.map { LogFields(entry, $0) } ?? LogFields(), log: log)
        switch filed {
        case .moved: break
        case .gone: return false
        case let .fault(fault):
            // Filed but not synced, or not filed: either way the operation stays ours until housekeeping.
            if folder == .cur { strand(entry, fault) } else { record(fault) }
            return false
        }
        state.withLock { if destination == .conflict { $0.summary.conflicts += 1 } else { $0.summary.failed += 1 } }
        return true
    }
}

extension LogFields {
    /// What a message about `claimed` says to the journal: its id, origin and trace, and how it went.
    init(_ claimed: QueueEntry, _ operation: Operation, outcome: String? = nil, spanID: String? = nil) {
        self.init(id: claimed.id, origin: operation.origin, outcome: outcome, traceID: operation.trace?.traceID,
                  spanID: spanID)
    }
}
