import SpoolConfiguration
import SpoolDocument
import SpoolHandlers
import SpoolQueue
import SpoolSystem
import SpoolTransport

/// How a worker sends: the knobs of `spool-send`.
package struct WorkerOptions: Sendable {
    /// Keys sent in parallel.
    package var concurrency = 4
    /// Ignore retry times for this run (still in order), like `postqueue -f`.
    package var flush = false
    /// Delays between attempts.
    package var backoff = Backoff()
    /// Seconds after enqueue at which an operation fails instead of being sent (Postfix's maximal_queue_lifetime).
    package var lifetimeSeconds: Int64 = 5 * 86400
    /// Seconds after which a claim made on another host is presumed dead.
    package var leaseSeconds = Spool.defaultLeaseSeconds(timeoutSeconds: TransportSettings().timeoutSeconds)
    /// Largest document read.
    package var maxSize = Spool.defaultMaxDocumentSize
    /// Largest payload sent (`--max-payload`) when spool.conf sets none; a larger one is filed with `too-large`.
    package var maxPayload = Spool.defaultMaxPayloadSize
    /// `User-Agent` sent unless an operation sets its own.
    package var userAgent = "spool-send/\(Version.current)"
    /// Where credential profiles live, if anywhere.
    package var credentials: Credentials?
    /// Seconds a request may take, or a handler run, before it is stopped (`--timeout`).
    package var timeoutSeconds = 30.0
    /// Origins (`scheme://host[:port]`) operations may be sent to; nil allows every origin.
    package var allowedOrigins: Set<String>?
    /// Whether a write landing in `conflict/` makes one GET of its resource for the human who will decide
    /// (`--no-fetch-on-conflict` turns it off).
    package var fetchesOnConflict = true
    /// Messages.
    package var log = Log.silent
    /// What a watcher started by systemd tells it (ready, status, watchdog, stopping); nil otherwise.
    package var service: ServiceStatus?
    /// Whether a watcher was asked to reload: its run then ends after the round in progress.
    package var reloadPending: @Sendable () -> Bool = { false }
    /// The meter `-v` shows uploads on, when standard error is a terminal.
    package var progress: ProgressMeter?
    /// spool.conf(5) at start, with the command line's transport options as its defaults, its handler directory
    /// and largest payload; the worker's `configuration` is the one in use.
    package var configuration = SpoolConfiguration()

    /// The defaults of `spool-send`.
    package init() {}

    /// The engine's callback for the upload of `id`'s `length` bytes: the meter's, when there is one, and the
    /// watchdog's, when systemd keeps one: bytes going out are the loop's progress, so that an upload longer
    /// than the watchdog's interval is not taken for a hang (a stalled one ends at `--timeout`).
    func uploadProgress(_ id: String, length: Int64) -> (@Sendable (Int64) -> Void)? {
        let watchdog = service?.longestWaitSeconds != nil ? service : nil
        guard progress != nil || watchdog != nil else { return nil }
        progress?.start(id, total: length)
        return { [progress] done in
            progress?.update(id, done: done)
            watchdog?.alive()
        }
    }
}

/// The project's version, sent in `User-Agent`.
package enum Version {
    /// The version string.
    package static let current = "0.1.0"
}
