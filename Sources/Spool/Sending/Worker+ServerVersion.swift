import SpoolConfiguration
import SpoolDocument
import SpoolHandlers
import SpoolNames
import SpoolQueue
import SpoolSystem
import SpoolTransport

/// The read made for a human when a write lands in `conflict/` (`ServerVersion`).
extension Worker {
    /// The server's version of a conflicting write's resource, as the reason's `theirs-*` fields and body;
    /// nil when the outcome is not a conflict, the operation is a handler's job, or `--no-fetch-on-conflict`.
    /// Fetched while the operation is still claimed, so that it is filed once, with its pair complete.
    package func fetchServerVersion(
        _ outcome: Outcome, _ claimed: QueueEntry, _ operation: Operation
    ) async -> FilingReason? {
        guard case .conflict = outcome, operation.handler == nil, options.fetchesOnConflict, let transport,
              settings(for: operation.origin).fetchesOnConflict ?? true
        else { return nil }
        var request: HTTPRequest
        do {
            request = ServerVersion.request(
                for: operation, userAgent: options.userAgent, profile: try profile(for: operation))
        } catch {
            let message = "the server's version was not fetched: \(error)"
            return FilingReason([("theirs-error", message)])
        }
        request.route = settings(for: operation.origin).route
        // One more request to the origin, so within its window and pace as every other: the write's own room
        // was given back with its answer. It is made under the write's claim, so it must end inside the lease
        // as a pushed-back write's must; a pause asked meanwhile, or no time left, leaves it to the operator.
        let lastStart = lastRequestStart(claimed)
        let unread = "the server's version was not fetched: "
        guard Timestamp.nowSeconds() < lastStart,
              case let .go(ticket) = await limits.acquire(share(operation), before: Double(lastStart))
        else {
            return FilingReason([("theirs-error", unread + "\(operation.origin) asked for a pause, or the claim's "
                + "lease (--lease) had no time left for it")])
        }
        guard Timestamp.nowSeconds() < lastStart else {
            limits.finish(share(operation), ticket: ticket, nil)
            return FilingReason([("theirs-error", unread + "the claim's lease (--lease) had no time left for it")])
        }
        let result = await transport.send(request)
        limits.finish(share(operation), ticket: ticket, result)
        let (fields, body) = ServerVersion.record(result, atSeconds: Timestamp.nowSeconds())
        return FilingReason(fields, body: body)
    }
}
