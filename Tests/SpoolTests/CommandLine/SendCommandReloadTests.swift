import Foundation
import Glibc
import SpoolTestSupport
import Testing

/// `systemctl reload` of a watcher (SIGHUP): spool.conf is read again and its new settings apply without a
/// restart; a broken one keeps the settings in use and says where it is broken; systemd hears
/// `RELOADING=1`, then `READY=1`.
@Suite struct SendCommandReloadTests {
    /// Writes spool.conf as an administrator does: mode 0600, replaced whole.
    static func write(_ text: String, to path: String) throws {
        try text.write(toFile: path + ".new", atomically: false, encoding: .utf8)
        #expect(chmod(path + ".new", 0o600) == 0 && rename(path + ".new", path) == 0)
    }

    /// A server, and a watcher of `spool` started by systemd and ready, with a spool.conf holding the server's
    /// origin to one write a minute; what the watcher writes on standard error. `finish` stops both.
    static func watch(_ spool: TemporarySpool) throws
        -> (server: TestServer, config: String, running: ServiceNotifyTests.NotifiedWatcher, output: OutputWatcher)
    {
        let server = try TestServer { _ in .respond(204, [:], "") }
        let config = spool.directory + "/spool.conf"
        try write("[\(server.baseURL)]\nrate = 1/m\n", to: config)
        let running = try ServiceNotifyTests.NotifiedWatcher(spool, arguments: ["--config", config])
        let output = OutputWatcher(running.errors)
        #expect(eventually(within: 20) { !running.listener.lines("READY=1").isEmpty }, "READY=1 once the queue is read")
        return (server, config, running, output)
    }

    /// An origin held to one write a minute: after one delivery the rest wait on its rate. The rate is
    /// lifted in spool.conf and the watcher told with SIGHUP: the rest go at once, without a restart.
    @Test func aReloadAppliesANewOriginSettingAtOnce() throws {
        let spool = TemporarySpool()
        let (server, config, running, output) = try Self.watch(spool)
        defer {
            running.finish()
            server.stop()
        }
        let (listener, watcher) = (running.listener, running.process)
        for index in 0..<10 { try spool.enqueue(["PUT", server.baseURL + "/notes/\(index)", "--key", "k\(index)"]) }
        #expect(eventually(within: 20) { server.requests.count == 1 }, "one write within the rate")
        #expect(eventually(within: 10, every: 0.1) { spool.waiting().count == 9 })
        #expect(server.requests.count == 1, "the rest wait on the rate of one a minute")

        try Self.write("[\(server.baseURL)]\nburst = 10\n", to: config)
        let reloadedAt = Date()
        kill(watcher.processIdentifier, SIGHUP)
        #expect(eventually(within: 10) { server.requests.count == 10 }, "sent at once under the new settings")
        #expect(Date().timeIntervalSince(reloadedAt) < 10 && spool.waiting().isEmpty)
        #expect(output.wait(for: "spool-send: reloaded \(config)"), "\(output.text)")
        #expect(listener.lines("RELOADING=1").count == 1 && listener.lines("MONOTONIC_USEC=").count == 1,
                "\(listener.messages.map(\.text))")
        #expect(eventually(within: 5) { listener.lines("READY=1").count == 2 }, "ready again after the reload")
        #expect(watcher.isRunning, "the watcher was not restarted")
    }

    /// A broken spool.conf on reload: the watcher says which line is wrong, keeps the settings in use (the
    /// origin's rate still holds its writes) and goes on; a fixed file is taken on the next SIGHUP.
    @Test func aBrokenFileKeepsTheSettingsInUseAndSaysWhere() throws {
        let spool = TemporarySpool()
        let (server, config, running, output) = try Self.watch(spool)
        defer {
            running.finish()
            server.stop()
        }
        let (listener, watcher) = (running.listener, running.process)

        try Self.write("[\(server.baseURL)]\nrate = fast\n", to: config)
        kill(watcher.processIdentifier, SIGHUP)
        #expect(output.wait(for: "the settings in use are kept"), "\(output.text)")
        #expect(output.text.contains("not reloaded: \(config) line 2: rate = fast"), "\(output.text)")
        #expect(eventually(within: 5) { listener.lines("READY=1").count == 2 }, "ready again, on the old settings")
        for index in 0..<3 { try spool.enqueue(["PUT", server.baseURL + "/notes/\(index)", "--key", "k\(index)"]) }
        #expect(eventually(within: 20) { server.requests.count == 1 }, "the old rate still applies")
        #expect(eventually(within: 10, every: 0.1) { spool.waiting().count == 2 } && server.requests.count == 1)

        try Self.write("[default]\n", to: config)
        kill(watcher.processIdentifier, SIGHUP)
        #expect(eventually(within: 10) { server.requests.count == 3 }, "the fixed file is taken")
        #expect(watcher.isRunning)
    }
}
