
/// How the HTTP engine connects: the transport knobs of `spool-send`, named after curl's options.
package struct TransportSettings: Sendable, Equatable {
    /// Which HTTP version to ask for.
    package enum Version: Sendable, Equatable {
        /// HTTP/2 on https when the server offers it by ALPN, HTTP/1.1 otherwise (curl's default).
        case automatic
        /// HTTP/1.1 only (`--http1.1`).
        case http1_1
    }

    /// Seconds one request may take in all, connecting included (`--timeout`).
    package var timeoutSeconds = 30.0
    /// Connections per origin, shared out between the threads: one per lane on HTTP/1.1; on HTTP/2 the lanes
    /// of one thread share one as streams.
    package var connectionsPerOrigin = 4
    /// Threads that send, each with its own connections, the lanes dealt out to them (`--threads`).
    package var threads = 1
    /// Streams on one HTTP/2 connection before another is opened.
    package var streamsPerConnection = 100
    /// A CA bundle to trust instead of the system's (`--cacert`, `SPOOL_CA_FILE`).
    package var caFile: String?
    /// A proxy for every request (`--proxy`); nil reads `http_proxy`, `https_proxy`, `all_proxy` as curl does.
    package var proxy: String?
    /// Hosts reached without the proxy (`--noproxy`); nil reads `no_proxy` as curl does.
    package var noProxy: String?
    /// The HTTP version asked for.
    package var version = Version.automatic
    /// Bytes per second a request's body is sent at most (`--max-rate`, curl's `--limit-rate`); nil: no cap.
    package var maxSendBytesPerSecond: Int64?
    /// Largest response head accepted, in bytes; a larger one files the operation rather than retrying it.
    package var maxHeaderBytes = 256 * 1024

    /// The defaults of `spool-send`.
    package init() {}
}

/// The TLS files an auth profile names for its origin: a CA to trust and a client certificate (mTLS).
package struct TLSFiles: Sendable, Equatable {
    /// A CA bundle trusted for this profile's requests instead of the default.
    package var caFile: String?
    /// The client certificate, PEM.
    package var certificateFile: String?
    /// The client certificate's private key, PEM, in a file only its owner can read.
    package var keyFile: String?

    /// TLS files from their paths.
    package init(caFile: String? = nil, certificateFile: String? = nil, keyFile: String? = nil) {
        self.caFile = caFile
        self.certificateFile = certificateFile
        self.keyFile = keyFile
    }

}

/// How to reach one origin, as spool.conf(5) and the command line say: each nil where they say nothing,
/// leaving the engine's own.
package struct Route: Sendable, Equatable {
    /// A CA bundle trusted for the origin.
    package var caFile: String?
    /// The proxy to reach it through.
    package var proxy: String?
    /// Hosts reached without the proxy.
    package var noProxy: String?
    /// The HTTP version to ask for.
    package var version: TransportSettings.Version?
    /// Bytes per second a body is sent to the origin at most (`max-rate`).
    package var maxSendBytesPerSecond: Int64?

    /// No settings.
    package init(
        caFile: String? = nil, proxy: String? = nil, noProxy: String? = nil, version: TransportSettings.Version? = nil,
        maxSendBytesPerSecond: Int64? = nil
    ) {
        (self.caFile, self.proxy, self.noProxy, self.version) = (caFile, proxy, noProxy, version)
        self.maxSendBytesPerSecond = maxSendBytesPerSecond
    }
}
