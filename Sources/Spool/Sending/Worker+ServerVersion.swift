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
    package func fetchServerVersion(_ outcome: Outcome, _ operation: Operation) async -> FilingReason? {
        guard case .conflict = outcome, operation.handler == nil, options.fetchesOnConflict, let transport,
              options.configuration.settings(for: operation.origin).fetchesOnConflict ?? true
        else { return nil }
        var request: HTTPRequest
        do {
            request = ServerVersion.request(
                for: operation, userAgent: options.userAgent, profile: try profile(for: operation))
        } catch {
            let message = "the server's version was not fetched: \(error)"
            return FilingReason([("theirs-error", message)])
        }
        request.route = options.configuration.settings(for: operation.origin).route
        // One more request to the origin, so within its window and pace as every other: the write's own room
        // was given back with its answer. A pause asked meanwhile leaves the read to the operator.
        guard case let .go(ticket) = await limits.acquire(operation.origin) else {
            return FilingReason([("theirs-error", "the server's version was not fetched: \(operation.origin) "
                + "asked for a pause")])
        }
        let result = await transport.send(request)
        limits.finish(operation.origin, ticket: ticket, result)
        let (fields, body) = ServerVersion.record(result, atSeconds: Timestamp.nowSeconds())
        return FilingReason(fields, body: body)
    }
}
