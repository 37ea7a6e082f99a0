import SpoolSystem

/// What a watcher tells systemd (`Type=notify`): ready once it has read its queue, a status line for
/// `systemctl status` when it changes (at most once a second), a watchdog ping at half the watchdog's interval
/// from the loop that does the work (each step of an operation's life, each round, each wake-up of the idle
/// watcher, so that a hung loop stops pinging and is restarted), that it reloads, and that it is stopping.
package final class ServiceStatus: Sendable {
    /// The shortest time between two status lines.
    static let statusSpacingSeconds = 1.0

    let notifier: ServiceNotifier
    /// When the watchdog and the status were last told (monotonic seconds), the last status line told, one
    /// held back by the spacing, and whether the service was said to be ready.
    private let last = Locked<
        (watchdogSeconds: Double, statusSeconds: Double, line: String, held: String?, ready: Bool)
    >((0, 0, "", nil, false))

    package init(_ notifier: ServiceNotifier) {
        self.notifier = notifier
    }

    /// How long the watcher may wait without a word: the watchdog's half interval, at most the status spacing
    /// while a status line is held back; nil without either.
    package var longestWaitSeconds: Double? {
        guard last.withLock({ $0.held != nil }) else { return notifier.watchdogSeconds }
        return min(notifier.watchdogSeconds ?? ServiceStatus.statusSpacingSeconds, ServiceStatus.statusSpacingSeconds)
    }

    /// The watcher has read its queue (its first plan is made): the service is up. Said once.
    package func ready() {
        let first = last.withLock { last in
            defer { last.ready = true }
            return !last.ready
        }
        if first { notifier.notify("READY=1") }
    }

    /// The loop made progress: pings the watchdog when half its interval has passed since the last ping, and
    /// tells a status line held back once its spacing has passed.
    package func alive() {
        if let held = last.withLock({ $0.held }) { status(held) }
        guard let interval = notifier.watchdogSeconds else { return }
        let nowSeconds = Timestamp.monotonicSeconds()
        let due = last.withLock { last in
            guard nowSeconds - last.watchdogSeconds >= interval * 0.9 else { return false }
            last.watchdogSeconds = nowSeconds
            return true
        }
        if due { notifier.notify("WATCHDOG=1") }
    }

    /// The watcher's state in a line, told when it changed, at most once a second: a change within the second
    /// is held back and told when the second is over (`alive`), so the last state is always the one shown.
    package func status(_ line: String) {
        let nowSeconds = Timestamp.monotonicSeconds()
        let due = last.withLock { last in
            guard line != last.line else {
                last.held = nil
                return false
            }
            guard nowSeconds - last.statusSeconds >= ServiceStatus.statusSpacingSeconds else {
                last.held = line
                return false
            }
            (last.statusSeconds, last.line, last.held) = (nowSeconds, line, nil)
            return true
        }
        if due { notifier.notify("STATUS=\(line)") }
    }

    /// The watcher reads its settings again: systemd shows it reloading until `reloaded`. The clock reading
    /// is what `Type=notify-reload` asks for, to tell this reload from an earlier one.
    package func reloading() {
        notifier.notify("RELOADING=1\nMONOTONIC_USEC=\(Int64(Timestamp.monotonicSeconds() * 1_000_000))")
    }

    /// The reload is done, whether the settings were taken or kept: the service is ready again.
    package func reloaded() {
        notifier.notify("READY=1")
    }

    /// The watcher is stopping.
    package func stopping() {
        notifier.notify("STOPPING=1")
    }
}

extension RunSummary {
    /// The watcher's state for `systemctl status`: what the last round did and what waits.
    package var statusLine: String {
        var parts = [isEmpty ? "idle" : "last round: \(attempts) sent, \(done) done, \(deferred) deferred, "
            + "\(failed) failed, \(conflicts) conflict"]
        if let nextDue { parts.append("next at \(Timestamp.formatRFC3339(nextDue))") }
        if heldKeys > 0 { parts.append("\(heldKeys) key(s) held") }
        if downOrigins > 0 { parts.append("\(downOrigins) origin(s) down") }
        if pausedOrigins > 0 { parts.append("\(pausedOrigins) origin(s) paused") }
        return parts.joined(separator: "; ")
    }
}
