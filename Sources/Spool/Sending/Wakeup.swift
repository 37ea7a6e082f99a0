import CSpool
import Dispatch
import Glibc
import SpoolSystem

/// What wakes a waiting `spool-send --watch`: a file landing in `new/` (inotify), the network changing
/// (rtnetlink: a new address, a new route, a link up), a stop signal, a reload signal (SIGHUP), or a timer.
///
/// The SIGTERM/SIGINT handler only writes to an eventfd, which stays readable once written; the loop polls
/// it together with inotify, so a signal is never lost between checking a flag and going to sleep.
package final class Wakeup: Sendable {
    /// The inotify descriptor watching `new/`, or -1 without one.
    package let inotify: Int32
    /// The eventfd the stop handler writes to: readable once SIGTERM or SIGINT has arrived.
    package let event: Int32
    /// The rtnetlink socket for network changes, or -1 without one (not watching, or refused).
    package let netlink: Int32
    /// The eventfd the SIGHUP handler writes to, or -1 when not watching (a run keeps SIGHUP's default).
    package let reload: Int32

    /// Why `wait` returned.
    package enum Reason: Sendable {
        case files, network, stop, reload, timeout
    }

    /// How long a burst of network news must be quiet before it counts as one change (a link coming up
    /// sends several), and the longest a burst is gathered.
    package static let networkQuiet = 0.2, networkGathering = 1.0

    /// Installs the stop handler, and watches `newDirectory` and the network when given one. A machine
    /// that refuses a netlink socket only loses the network wake-up.
    package init(watching newDirectory: String?) throws(Errno) {
        let event = try retryingInterrupts { eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK)) }
        try retryingInterrupts { cspool_install_stop_handler(event) }
        self.event = event
        if let newDirectory {
            let inotify = try retryingInterrupts { inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK)) }
            try retryingInterrupts { inotify_add_watch(inotify, newDirectory, UInt32(IN_MOVED_TO | IN_CLOSE_WRITE)) }
            self.inotify = inotify
            netlink = cspool_netlink_open()
            let reload = try retryingInterrupts { eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK)) }
            try retryingInterrupts { cspool_install_reload_handler(reload) }
            self.reload = reload
        } else {
            inotify = -1
            netlink = -1
            reload = -1
        }
    }

    /// Calls `onStop` from a background thread once SIGTERM or SIGINT has arrived.
    package func onStopSignal(_ onStop: @escaping @Sendable () -> Void) {
        let event = self.event
        // A queue of its own, whose thread may block for the whole watch: a global queue's thread is one of
        // the few that Dispatch shares out by the cores, and this one would never come back.
        DispatchQueue(label: "spool.stop-signal").async {
            var fds = [pollfd(fd: event, events: Int16(POLLIN), revents: 0)]
            while Glibc.poll(&fds, 1, -1) <= 0 {}
            onStop()
        }
    }

    /// Whether a reload was asked for (SIGHUP) and not yet taken by `poll`: a busy watcher's rounds end early
    /// for it, so that a steady stream of drops does not hold it off.
    package var reloadPending: Bool {
        guard reload >= 0 else { return false }
        var fds = [pollfd(fd: reload, events: Int16(POLLIN), revents: 0)]
        return Glibc.poll(&fds, 1, 0) > 0
    }

    /// Waits up to `seconds` for files in `new/` or a stop, without holding a cooperative thread.
    package func wait(seconds: Double) async -> Reason {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: self.poll(seconds: seconds)) }
        }
    }

    /// Blocks up to `seconds` (an hour at most) for a stop, a reload, network news or files in `new/`, in that
    /// precedence.
    package func poll(seconds: Double) -> Reason {
        let deadline = Timestamp.monotonicSeconds() + max(0, min(seconds, 3600))
        while true {
            var fds = [
                pollfd(fd: event, events: Int16(POLLIN), revents: 0),
                pollfd(fd: inotify, events: Int16(POLLIN), revents: 0),
                pollfd(fd: netlink, events: Int16(POLLIN), revents: 0),
                pollfd(fd: reload, events: Int16(POLLIN), revents: 0)
            ]
            let milliseconds = Int32(max(0, deadline - Timestamp.monotonicSeconds()) * 1000)
            let ready = Glibc.poll(&fds, nfds_t(fds.count), milliseconds)
            if ready <= 0 { return .timeout }
            if fds[0].revents != 0 { return .stop }
            if fds[3].revents != 0 {
                // Read back to zero: signals that came together ask for one reload.
                var count: UInt64 = 0
                _ = Glibc.read(reload, &count, 8)
                return .reload
            }
            if fds[2].revents != 0, cspool_netlink_drain(netlink) == 1 {
                gatherNetworkNews()
                return .network
            }
            if fds[1].revents != 0 {
                // Drain every queued event: one pass over the queue handles them all.
                var buffer = [UInt8](repeating: 0, count: 64 * 1024)
                while read(inotify, &buffer, buffer.count) > 0 {}
                return .files
            }
        }
    }

    /// Waits until the network news has been quiet for `networkQuiet`, at most `networkGathering`.
    package func gatherNetworkNews() {
        let end = Timestamp.monotonicSeconds() + Wakeup.networkGathering
        while Timestamp.monotonicSeconds() < end {
            var fds = [pollfd(fd: netlink, events: Int16(POLLIN), revents: 0)]
            guard Glibc.poll(&fds, 1, Int32(Wakeup.networkQuiet * 1000)) > 0 else { return }
            _ = cspool_netlink_drain(netlink)
        }
    }
}
