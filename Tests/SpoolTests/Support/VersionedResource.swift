import Foundation
import SpoolSystem
import SpoolTestSupport

/// The seed scenario's server: one resource with a version, `If-Match` checked, responses replayed by
/// `Idempotency-Key`, applied writes counted.
final class VersionedResource: @unchecked Sendable {
    struct State {
        var title = "first"
        var version = 1
        var writes = 0
        var applied: [String] = []
        var recorded: [String: TestServer.Reply] = [:]
        var requestCount = 0
    }

    let state = Locked(State())
    /// Decides per request (by arrival number, from 1) whether to fail it before applying.
    let inject: @Sendable (Int, TestServer.Request) -> TestServer.Reply?
    /// Whether to drop the connection after applying the write with this arrival number.
    let loseResponse: @Sendable (Int) -> Bool

    init(inject: @escaping @Sendable (Int, TestServer.Request) -> TestServer.Reply? = { _, _ in nil },
         loseResponse: @escaping @Sendable (Int) -> Bool = { _ in false }) {
        self.inject = inject
        self.loseResponse = loseResponse
    }

    var writes: Int { state.withLock { $0.writes } }
    var title: String { state.withLock { $0.title } }
    var version: Int { state.withLock { $0.version } }
    var applied: [String] { state.withLock { $0.applied } }

    func handle(_ request: TestServer.Request) -> TestServer.Reply {
        state.withLock { state in
            // A read (spool-send's GET of the server's version on a conflict) changes nothing.
            if request.method == "GET" {
                return .respond(200, ["ETag": "\"v\(state.version)\"", "Content-Type": "text/plain"], state.title)
            }
            state.requestCount += 1
            let number = state.requestCount
            if let key = request.header("Idempotency-Key"), let recorded = state.recorded[key] { return recorded }
            if let reply = inject(number, request) { return reply }
            let etag = "\"v\(state.version)\""
            if let expected = request.header("If-Match"), expected != etag {
                return .respond(412, ["ETag": etag], "version is \(state.version)")
            }
            state.version += 1
            state.writes += 1
            state.title = request.text
            state.applied.append(request.text)
            let reply = TestServer.Reply.respond(200, ["ETag": "\"v\(state.version)\""], "")
            if let key = request.header("Idempotency-Key") { state.recorded[key] = reply }
            return loseResponse(number) ? .close : reply
        }
    }
}
