import Glibc

/// The service manager's notification socket: systemd's `sd_notify` protocol, one datagram of `KEY=value` lines
/// to the Unix socket `$NOTIFY_SOCKET` names (a path, or `@` for the abstract namespace), written by hand so
/// that spool links no libsystemd. A failed send is ignored, as `sd_notify`'s is: the service manager's
/// trouble must not stop the sending.
package struct ServiceNotifier: Sendable {
    /// The socket's address bytes, the abstract namespace's leading NUL included.
    let address: [UInt8]
    /// How often the watchdog wants to hear from this process: half of `$WATCHDOG_USEC`, as `sd_watchdog_enabled`
    /// advises; nil when no watchdog watches it (unset, or `$WATCHDOG_PID` names another process).
    package let watchdogSeconds: Double?

    /// The notifier of this process's service manager; nil when it was not started as `Type=notify` (no
    /// `$NOTIFY_SOCKET`, or one that is neither a path nor an abstract name).
    package static func fromEnvironment() -> ServiceNotifier? {
        guard let socket = Environment.value("NOTIFY_SOCKET"), socket.hasPrefix("/") || socket.hasPrefix("@"),
              socket.utf8.count < MemoryLayout.size(ofValue: sockaddr_un().sun_path)
        else { return nil }
        var address = Array(socket.utf8)
        if address[0] == UInt8(ascii: "@") { address[0] = 0 }
        let forThisProcess = Environment.value("WATCHDOG_PID").map { $0 == String(getpid()) } ?? true
        let watchdog = Environment.value("WATCHDOG_USEC").flatMap(UInt64.init).flatMap { $0 > 0 ? $0 : nil }
        return ServiceNotifier(
            address: address, watchdogSeconds: forThisProcess ? watchdog.map { Double($0) / 2_000_000 } : nil)
    }

    /// Sends `state`, lines such as `READY=1` or `STATUS=…`, without waiting: it may be called on the HTTP
    /// engine's thread, and a ping lost to a full socket is one of many.
    package func notify(_ state: String) {
        UnixDatagram.send(Array(state.utf8), to: address)
    }
}
