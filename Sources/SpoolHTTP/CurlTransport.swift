import CCurl
import Glibc
import SpoolSystem
import SpoolTransport

/// Sends every request, http and https alike, through one libcurl multi handle driven by one thread:
/// connections are kept per origin and shared, on HTTP/2 as multiplexed streams, so that many lanes in
/// flight cost no threads. The engine never touches the spool; it only answers `send`.
public final class CurlTransport: Transport, @unchecked Sendable {
    // @unchecked: `multi` is used only by the loop thread, except curl_multi_wakeup, which is thread-safe;
    // the inbox is behind a lock.
    let settings: TransportSettings
    private let multi: UnsafeMutableRawPointer
    /// New transfers, and whether the loop sleeps (or is about to) in curl_multi_poll and must be woken for them.
    private let inbox = Locked<(transfers: [CurlTransfer], sleeping: Bool)>(([], false))
    private let started = Locked(false)

    /// An engine with these settings. Its thread starts with the first request.
    public init(settings: TransportSettings) {
        CurlTransport.initializeOnce
        self.settings = settings
        guard let multi = curl_multi_init() else { fatalError("libcurl could not make a multi handle (out of memory)") }
        self.multi = multi
        ccurl_multi_setopt_long(multi, Int32(CCURLMOPT_PIPELINING), CCURLPIPE_MULTIPLEX)
        ccurl_multi_setopt_long(multi, Int32(CCURLMOPT_MAX_HOST_CONNECTIONS), max(1, settings.connectionsPerOrigin))
        ccurl_multi_setopt_long(multi, Int32(CCURLMOPT_MAX_CONCURRENT_STREAMS), max(1, settings.streamsPerConnection))
        ccurl_multi_setopt_long(multi, Int32(CCURLMOPT_MAXCONNECTS), max(8, 2 * settings.connectionsPerOrigin))
    }

    /// curl_global_init is not thread-safe: it runs once, before the first handle.
    private static let initializeOnce: Void = { _ = curl_global_init(CCURL_GLOBAL_ALL) }()

    /// libcurl's version line, for `-v` and the benchmark.
    public static var version: String { String(cString: curl_version()) }

    public func send(_ request: HTTPRequest) async -> Result<HTTPResponse, TransportError> {
        startIfNeeded()
        return await withCheckedContinuation { continuation in
            guard let transfer = CurlTransfer(request, settings, continuation) else {
                continuation.resume(returning: .failure(.other("libcurl could not make a handle (out of memory)")))
                return
            }
            // A wake-up is a write to libcurl's socket pair and a read back: paid only when the loop sleeps,
            // once however many requests arrive meanwhile.
            let sleeping = inbox.withLock { inbox in
                defer { inbox.sleeping = false }
                inbox.transfers.append(transfer)
                return inbox.sleeping
            }
            if sleeping { curl_multi_wakeup(multi) }
        }
    }

    private func startIfNeeded() {
        let first = started.withLock { started in
            defer { started = true }
            return !started
        }
        guard first else { return }
        var thread = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        let result = pthread_create(&thread, nil, { context in
            Unmanaged<CurlTransport>.fromOpaque(context!).takeRetainedValue().loop()
        }, context)
        precondition(result == 0, "cannot start the HTTP engine's thread: \(Errno(rawValue: result))")
        pthread_detach(thread)
    }

    /// Hands a transfer to libcurl; one it refuses (out of memory) ends at once, so no caller waits forever.
    private func add(_ transfer: CurlTransfer, to active: inout [UnsafeMutableRawPointer: CurlTransfer]) {
        let code = curl_multi_add_handle(multi, transfer.easy)
        if code == 0 {
            active[transfer.easy] = transfer
        } else {
            transfer.fail(.other("libcurl would not take the request: \(String(cString: curl_multi_strerror(code)))"))
        }
    }

    /// The engine: adds new transfers, lets libcurl work, finishes what is done, and sleeps in
    /// curl_multi_poll until a socket is ready, a timer is due or `send` wakes it.
    private func loop() -> Never {
        var active: [UnsafeMutableRawPointer: CurlTransfer] = [:]
        while true {
            for transfer in inbox.withLock({ inbox in defer { inbox.transfers = [] }; return inbox.transfers }) {
                add(transfer, to: &active)
            }
            var running: Int32 = 0
            curl_multi_perform(multi, &running)
            var remaining: Int32 = 0
            while let message = curl_multi_info_read(multi, &remaining) {
                guard message.pointee.msg == Int32(CCURLMSG_DONE), let easy = message.pointee.easy_handle else {
                    continue
                }
                let code = message.pointee.data.result
                curl_multi_remove_handle(multi, easy)
                guard let transfer = active[easy] else { continue }
                active[easy] = nil
                if !transfer.finish(code) { add(transfer, to: &active) }
            }
            // Asleep only with nothing new: a request that arrived since the drain above is added at once, and
            // one that arrives from now on sees `sleeping` and wakes the poll.
            let idle = inbox.withLock { inbox in
                inbox.sleeping = inbox.transfers.isEmpty
                return inbox.sleeping
            }
            if idle { curl_multi_poll(multi, nil, 0, 1000, nil) }
            inbox.withLock { $0.sleeping = false }
        }
    }
}
