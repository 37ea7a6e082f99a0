import CCurl
import Glibc
import SpoolSystem
import SpoolTransport
import Synchronization

/// One libcurl multi handle and the one thread that drives it: connections are kept per origin and shared,
/// on HTTP/2 as multiplexed streams, so that many lanes in flight cost no threads.
///
/// The thread is also a task executor: the lanes given to it run on it, between the turns of libcurl's loop.
/// Why: a lane on Swift's global executor handed each request to this thread and got the answer back on
/// another, two thread wake-ups a request (a futex, a write to libcurl's socket pair, a `poll`); here a
/// request and its answer are a function call each, and one thread keeps the lanes' and libcurl's data warm.
final class CurlEngine: TaskExecutor, @unchecked Sendable {
    // @unchecked: `multi` is used only by the loop thread, except curl_multi_wakeup, which is thread-safe;
    // the inbox is behind a lock.
    let settings: TransportSettings
    private let multi: UnsafeMutableRawPointer
    /// New transfers and jobs, and whether the loop sleeps (or is about to) in curl_multi_poll and must be
    /// woken for them.
    private let inbox = Locked<Inbox>(Inbox())
    private let started = Locked(false)
    /// The loop thread's `pthread_self`, 0 until it runs: how `send` knows a lane already runs here.
    private let thread = Atomic<UInt>(0)

    private struct Inbox {
        var transfers: [CurlTransfer] = []
        var jobs: [UnownedJob] = []
        var sleeping = false
        var isEmpty: Bool { transfers.isEmpty && jobs.isEmpty }
    }

    /// An engine keeping at most `connections` connections to one origin and `kept` in all. Its thread
    /// starts with its first request or job.
    init(settings: TransportSettings, connections: Int, kept: Int) {
        self.settings = settings
        guard let multi = curl_multi_init() else { fatalError("libcurl could not make a multi handle (out of memory)") }
        self.multi = multi
        ccurl_multi_setopt_long(multi, Int32(CCURLMOPT_PIPELINING), CCURLPIPE_MULTIPLEX)
        ccurl_multi_setopt_long(multi, Int32(CCURLMOPT_MAX_HOST_CONNECTIONS), max(1, connections))
        ccurl_multi_setopt_long(multi, Int32(CCURLMOPT_MAX_CONCURRENT_STREAMS), max(1, settings.streamsPerConnection))
        ccurl_multi_setopt_long(multi, Int32(CCURLMOPT_MAXCONNECTS), max(1, kept))
    }

    /// Whether the calling thread is this engine's loop thread.
    var isCurrent: Bool { thread.load(ordering: .relaxed) == pthread_self() }

    /// Hands `transfer` to the loop, which adds it at its next turn.
    func submit(_ transfer: CurlTransfer) {
        deliver { $0.transfers.append(transfer) }
    }

    /// Runs `job` on the loop thread, at its next turn.
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        deliver { $0.jobs.append(job) }
    }

    /// Puts work in the inbox, starting the loop thread for the first, and wakes the loop if it sleeps. A
    /// wake-up is a write to libcurl's socket pair and a read back: paid only when the loop sleeps, once however
    /// much arrives meanwhile; never from the loop thread itself, which looks at the inbox before it sleeps.
    private func deliver(_ put: (inout Inbox) -> Void) {
        startIfNeeded()
        let sleeping = inbox.withLock { inbox in
            defer { inbox.sleeping = false }
            put(&inbox)
            return inbox.sleeping
        }
        if sleeping { curl_multi_wakeup(multi) }
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
            Unmanaged<CurlEngine>.fromOpaque(context!).takeRetainedValue().loop()
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

    /// The engine: runs the jobs that were enqueued, adds new transfers, lets libcurl work, finishes what is
    /// done (which enqueues the waiting lanes' jobs), and sleeps in curl_multi_poll until a socket is ready, a
    /// timer is due or `deliver` wakes it.
    private func loop() -> Never {
        var active: [UnsafeMutableRawPointer: CurlTransfer] = [:]
        let executor = asUnownedTaskExecutor()
        thread.store(pthread_self(), ordering: .relaxed)
        // Named for `top -H` and `ps -L`: the thread that sends, and runs the lanes.
        ThreadName.set(CurlTransport.threadName)
        while true {
            // Jobs first: what they send is added in the same turn.
            for job in inbox.withLock({ inbox in defer { inbox.jobs = [] }; return inbox.jobs }) {
                job.runSynchronously(on: executor)
            }
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
                inbox.sleeping = inbox.isEmpty
                return inbox.sleeping
            }
            // With no transfer, nothing but `deliver` has a reason to wake the loop (libcurl waits less when a
            // timer of its own is due sooner): an idle watcher's threads sleep rather than wake each second.
            if idle { curl_multi_poll(multi, nil, 0, active.isEmpty ? 3_600_000 : 1000, nil) }
            inbox.withLock { $0.sleeping = false }
        }
    }
}
