import CSpool
import Dispatch
import Glibc

/// What wakes a waiting `spool-send --watch`: a file landing in `new/` (inotify), a stop signal, or a timer.
///
/// The SIGTERM/SIGINT handler only writes to an eventfd, which stays readable once written; the loop polls
/// it together with inotify, so a signal is never lost between checking a flag and going to sleep.
public final class Wakeup: Sendable {
    let inotify: Int32
    let event: Int32

    /// Why `wait` returned.
    public enum Reason: Sendable {
        case files, stop, timeout
    }

    /// Installs the stop handler, and watches `newDirectory` when given.
    public init(watching newDirectory: String?) throws(Errno) {
        let event = try retryingInterrupts { eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK)) }
        try retryingInterrupts { cspool_install_stop_handler(event) }
        self.event = event
        if let newDirectory {
            inotify = try retryingInterrupts { inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK)) }
            try retryingInterrupts { inotify_add_watch(inotify, newDirectory, UInt32(IN_MOVED_TO | IN_CLOSE_WRITE)) }
        } else {
            inotify = -1
        }
    }

    /// Calls `onStop` from a background thread once SIGTERM or SIGINT has arrived.
    public func onStopSignal(_ onStop: @escaping @Sendable () -> Void) {
        let event = self.event
        DispatchQueue.global().async {
            var fds = [pollfd(fd: event, events: Int16(POLLIN), revents: 0)]
            while Glibc.poll(&fds, 1, -1) <= 0 {}
            onStop()
        }
    }

    /// Waits up to `seconds` for files in `new/` or a stop, without holding a cooperative thread.
    public func wait(seconds: Double) async -> Reason {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: self.poll(seconds: seconds)) }
        }
    }

    func poll(seconds: Double) -> Reason {
        var fds = [pollfd(fd: event, events: Int16(POLLIN), revents: 0)]
        if inotify >= 0 { fds.append(pollfd(fd: inotify, events: Int16(POLLIN), revents: 0)) }
        let milliseconds = Int32(max(0, min(seconds, 3600)) * 1000)
        let ready = Glibc.poll(&fds, nfds_t(fds.count), milliseconds)
        if ready <= 0 { return .timeout }
        if fds[0].revents != 0 { return .stop }
        // Drain every queued event: one pass over the queue handles them all.
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while read(inotify, &buffer, buffer.count) > 0 {}
        return .files
    }
}
