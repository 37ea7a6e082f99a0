import SpoolDocument
import SpoolNames
import SpoolSystem
import SpoolTransport

/// What spool.conf(5) says about one origin (or, for `[default]`, about every origin): each setting nil
/// where the file says nothing.
package struct OriginSettings: Sendable, Equatable {
    /// Requests in flight to the origin at most (`max-concurrency`); the window grows up to this.
    package var maxConcurrency: Int?
    /// Requests in flight to the origin at first (`initial-concurrency`), before answers grow the window.
    package var initialConcurrency: Int?
    /// Requests per second at most (`rate`, written as curl's `--rate`: `10/s`, `600/m`, `1000/h`, `5000/d`).
    package var rate: Double?
    /// Requests that may go at once before `rate` spaces them (`burst`).
    package var burst: Int?
    /// A CA bundle trusted for the origin (`cacert`).
    package var caFile: String?
    /// The proxy to reach the origin through (`proxy`).
    package var proxy: String?
    /// Hosts reached without the proxy (`noproxy`).
    package var noProxy: String?
    /// The HTTP version to ask for (`http-version`).
    package var version: TransportSettings.Version?
    /// Report an operation still waiting this many seconds after its enqueue, once (`warn-after`).
    package var warnAfterSeconds: Int64?
    /// Bytes per second a body is sent to the origin at most (`max-rate`, as curl's `--limit-rate`).
    package var maxSendBytesPerSecond: Int64?
    /// Whether a write to the origin landing in `conflict/` makes one GET of its resource (`fetch-on-conflict`).
    package var fetchesOnConflict: Bool?

    /// No settings.
    package init() {}

    /// The part of these settings the HTTP engine needs.
    package var route: Route {
        Route(
            caFile: caFile, proxy: proxy, noProxy: noProxy, version: version,
            maxSendBytesPerSecond: maxSendBytesPerSecond)
    }

    /// These settings, with `fallback`'s where these have none.
    package func over(_ fallback: OriginSettings) -> OriginSettings {
        var merged = self
        merged.maxConcurrency = maxConcurrency ?? fallback.maxConcurrency
        merged.initialConcurrency = initialConcurrency ?? fallback.initialConcurrency
        merged.rate = rate ?? fallback.rate
        merged.burst = burst ?? fallback.burst
        merged.caFile = caFile ?? fallback.caFile
        merged.proxy = proxy ?? fallback.proxy
        merged.noProxy = noProxy ?? fallback.noProxy
        merged.version = version ?? fallback.version
        merged.warnAfterSeconds = warnAfterSeconds ?? fallback.warnAfterSeconds
        merged.maxSendBytesPerSecond = maxSendBytesPerSecond ?? fallback.maxSendBytesPerSecond
        merged.fetchesOnConflict = fetchesOnConflict ?? fallback.fetchesOnConflict
        return merged
    }
}
