import CCurl
import Glibc
import SpoolSystem
import SpoolTransport

/// Sends every request, http and https alike, through libcurl's multi interface: one or more engines
/// (`CurlEngine`), each a multi handle driven by one thread that is also the executor of the lanes given to
/// it. One engine is what curl itself runs; more let a machine's cores share the lanes' file work and TLS.
/// The engine never touches the spool; it only answers `send`.
package final class CurlTransport: Transport, Sendable {
    /// The engines, one thread each; lanes are dealt out to them in turn.
    private let engines: [CurlEngine]

    /// An engine with these settings: `settings.threads` threads, which share `connectionsPerOrigin` between
    /// them. Their threads start with the first request.
    package init(settings: TransportSettings) {
        CurlTransport.initializeOnce
        let count = max(1, settings.threads)
        let connections = max(1, settings.connectionsPerOrigin)
        // Connections kept in all, over every origin: what one engine kept, shared out.
        let kept = max(8, 2 * connections)
        engines = (0..<count).map { index in
            // Dealt out as the lanes are: the first engines take one more.
            func share(_ total: Int) -> Int { total / count + (index < total % count ? 1 : 0) }
            return CurlEngine(settings: settings, connections: share(connections), kept: share(kept))
        }
    }

    /// curl_global_init is not thread-safe: it runs once, before the first handle.
    private static let initializeOnce: Void = { _ = curl_global_init(CCURL_GLOBAL_ALL) }()

    /// libcurl's version line, for `-v` and the benchmark.
    package static var version: String { String(cString: curl_version()) }

    /// The name of the engines' threads (at most 15 bytes, Linux's limit).
    package static let threadName = "spool-http"

    /// How many threads send: one per engine.
    package var threads: Int { engines.count }

    /// Sends `request` and waits for its answer or its transport failure: on the engine whose thread the
    /// caller runs on, so that a lane's request crosses no thread; from elsewhere, on the first.
    package func send(_ request: HTTPRequest) async -> Result<HTTPResponse, TransportError> {
        let engine = engines.first(where: \.isCurrent) ?? engines[0]
        return await withCheckedContinuation { continuation in
            guard let transfer = CurlTransfer(request, engine.settings, continuation) else {
                continuation.resume(returning: .failure(.other("libcurl could not make a handle (out of memory)")))
                return
            }
            engine.submit(transfer)
        }
    }

    /// The thread lane `slot` runs on: the engines in turn.
    package func laneExecutor(slot: Int) -> (any TaskExecutor)? {
        engines[slot % engines.count]
    }
}
