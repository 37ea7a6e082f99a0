import Dispatch
import SpoolTestSupport
@testable import SpoolSystem

/// A `TestServer` that holds the request to one path until the test releases it (at most 20 s), so that a
/// test can act while a sender waits on that request; every request is answered `status`.
final class HeldServer: Sendable {
    /// The server itself, for its URL and its record of requests.
    let server: TestServer
    private let holding = Locked(false)
    private let answer = DispatchSemaphore(value: 0)

    /// A server holding the request to `path`, answering every request `status`.
    init(holding path: String, status: Int) throws {
        let (holding, answer) = (self.holding, self.answer)
        server = try TestServer { request in
            if request.path == path {
                holding.withLock { $0 = true }
                _ = answer.wait(timeout: .now() + 20)
            }
            return .respond(status, [:], "")
        }
    }

    /// Whether the held request has reached the server.
    var isHolding: Bool { holding.withLock { $0 } }

    /// Lets the held request be answered.
    func release() { answer.signal() }
}
