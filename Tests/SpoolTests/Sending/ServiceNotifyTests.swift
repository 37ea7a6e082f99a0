import Foundation
import Glibc
@testable import SpoolSystem
@testable import SpoolSending
import SpoolTestSupport
import Testing

/// A watcher started as systemd starts a `Type=notify` service, told a `NOTIFY_SOCKET` and a watchdog
/// interval, against a real datagram socket standing in for systemd.
@Suite struct ServiceNotifyTests {
    /// A Unix datagram socket bound to a path, gathering every datagram it receives, as systemd's is.
    final class NotifyListener: Sendable {
        let path: String
        let fd: Int32
        /// What came, with when, and whether the reader is to stop.
        private let state = Locked<(received: [(at: Date, text: String)], stopped: Bool)>(([], false))
        private let ended = DispatchSemaphore(value: 0)
        /// Whether the socket could not be bound: the test then fails, it does not crash the run.
        let bindFailed: Bool

        init(in directory: String) {
            let path = directory + "/notify", fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
            (self.path, self.fd) = (path, fd)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { bytes in
                for (index, byte) in path.utf8.enumerated() { bytes[index] = byte }
            }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            bindFailed = bound != 0
            var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            let (shared, done, socket) = (state, ended, fd)
            Thread.detachNewThread {
                var buffer = [UInt8](repeating: 0, count: 4096)
                while !shared.withLock({ $0.stopped }) {
                    let count = recv(socket, &buffer, buffer.count, 0)
                    guard count > 0 else { continue }
                    let text = String(decoding: buffer[..<count], as: UTF8.self)
                    shared.withLock { $0.received.append((Date(), text)) }
                }
                done.signal()
            }
        }

        /// Every message so far, with when it came.
        var messages: [(at: Date, text: String)] { state.withLock { $0.received } }

        /// The lines received that start with `prefix`, in order.
        func lines(_ prefix: String) -> [(at: Date, text: String)] {
            messages.flatMap { message in
                message.text.split(separator: "\n").filter { $0.hasPrefix(prefix) }.map { (message.at, String($0)) }
            }
        }

        /// Stops the reader (its receive times out every 0.1 s) and closes the socket.
        func stop() {
            state.withLock { $0.stopped = true }
            _ = ended.wait(timeout: .now() + 5)
            close(fd)
        }
    }

    /// A watcher of `spool` started as systemd starts a `Type=notify` service with a one-second watchdog,
    /// and the socket it tells; `finish` stops both.
    struct NotifiedWatcher {
        let listener: NotifyListener
        let process: Process
        let errors: Pipe

        init(_ spool: TemporarySpool, arguments: [String] = []) throws {
            _ = try spool.open()
            listener = NotifyListener(in: spool.directory)
            if listener.bindFailed { listener.stop() }
            try #require(!listener.bindFailed, "the test binds its notify socket")
            (process, _, errors) = try Command.start(
                "spool-send", ["--spool", spool.path, "--watch"] + arguments, environment: [
                "NOTIFY_SOCKET": listener.path, "WATCHDOG_USEC": "1000000",
            ])
        }

        func finish() {
            if process.isRunning { process.terminate() }
            listener.stop()
        }
    }

    @Test func aWatcherSaysReadyStatusAliveAndStopping() throws {
        let spool = TemporarySpool()
        let server = try TestServer { _ in .respond(204, [:], "") }
        defer { server.stop() }
        let running = try NotifiedWatcher(spool)
        defer { running.finish() }
        let (listener, watcher, err) = (running.listener, running.process, running.errors)
        #expect(eventually(within: 20) { !listener.lines("READY=1").isEmpty }, "READY=1 once the queue is read")
        #expect(eventually(within: 20) { listener.lines("STATUS=").first?.text == "STATUS=idle" },
                "\(listener.messages.map(\.text))")
        // Half the watchdog's second: about two pings a second while idle.
        let start = Date()
        #expect(eventually(within: 10) { listener.lines("WATCHDOG=1").filter { $0.at > start }.count >= 4 })
        let pings = listener.lines("WATCHDOG=1").filter { $0.at > start }.prefix(4).map(\.at)
        let gaps = zip(pings.dropFirst(), pings).map { $0.timeIntervalSince($1) }
        #expect(gaps.allSatisfy { $0 > 0.2 && $0 < 1.5 }, "pings at about half the interval: \(gaps)")

        try spool.enqueue(["PUT", server.baseURL + "/notes/1", "--body", "hello"])
        #expect(eventually(within: 20) { listener.lines("STATUS=last round: 1 sent, 1 done").count == 1 },
                "\(listener.lines("STATUS=").map(\.text))")
        watcher.terminate()
        watcher.waitUntilExit()
        #expect(watcher.terminationStatus == 0, "\(String(decoding: err.fileHandleForReading.availableData, as: UTF8.self))")
        #expect(eventually(within: 5) { !listener.lines("STOPPING=1").isEmpty }, "STOPPING=1 on SIGTERM")
    }

    /// A change within a second of the last status line is held back, and told once the second is over by
    /// the loop's next word (its wait is cut to the second meanwhile), so the line shown is the last state.
    @Test func aStatusHeldByTheSpacingIsToldLater() throws {
        let directory = makeTemporaryDirectory("spool-status")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let listener = NotifyListener(in: directory)
        defer { listener.stop() }
        try #require(!listener.bindFailed, "the test binds its notify socket")
        let status = ServiceStatus(ServiceNotifier(address: Array(listener.path.utf8), watchdogSeconds: nil))
        #expect(status.longestWaitSeconds == nil)
        status.status("first")
        status.status("second")
        #expect(status.longestWaitSeconds == 1, "the wait is cut while a line is held")
        #expect(eventually(within: 5) {
            status.alive()
            return listener.lines("STATUS=").map(\.text) == ["STATUS=first", "STATUS=second"]
        }, "\(listener.messages.map(\.text))")
        #expect(status.longestWaitSeconds == nil)
    }

    /// The pings come from the loop that works: while it waits on a request the server holds, it says
    /// nothing, so a loop that hangs there is restarted once the watchdog's interval passes.
    @Test func aLoopHeldOnARequestStopsPinging() throws {
        let spool = TemporarySpool()
        let held = try HeldServer(holding: "/held", status: 204)
        defer { held.release() }
        let running = try NotifiedWatcher(spool)
        defer { running.finish() }
        let listener = running.listener
        #expect(eventually(within: 20) { !listener.lines("READY=1").isEmpty })
        try spool.enqueue(["PUT", held.server.baseURL + "/held", "--body", "x"])
        #expect(eventually(within: 20) { held.isHolding }, "the request reached the server")
        let arrived = Date()
        #expect(eventually(within: 10, every: 0.1) { Date().timeIntervalSince(arrived) > 3 })
        let during = listener.lines("WATCHDOG=1").filter { $0.at > arrived.addingTimeInterval(0.6) }
        #expect(during.isEmpty, "no ping while the loop is held: \(during.map(\.at))")
        held.release()
        let released = Date()
        #expect(eventually(within: 10) { listener.lines("WATCHDOG=1").contains { $0.at > released } },
                "pings again once the loop goes on")
    }
}
