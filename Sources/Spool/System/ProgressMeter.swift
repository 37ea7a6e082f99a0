import Glibc

/// curl's kind of progress meter for long transfers, on one line of standard error that redraws itself: a
/// payload `spool-enqueue` copies, the uploads `spool-send -v` makes. Made only for a terminal, so a script,
/// a log file or cron sees nothing of it.
///
/// It appears only once a transfer has taken `delay` (a copy that ends sooner says nothing), redraws at
/// most every `interval`, and leaves its last state on the screen when the last transfer ends, as curl does.
/// `Log` lines written meanwhile go above it (`ProgressMeter.printing`), so that the two never share a line.
package final class ProgressMeter: Sendable {
    /// What is moving, as the line begins: `copying`, `uploading`.
    let verb: String
    let delay: Double, interval: Double
    private let state = Locked(State())

    /// The transfers under way, by name (an operation id), and what is on screen.
    struct State {
        var transfers: [String: Transfer] = [:]
        var started: Double?
        var drawn: Double?
    }

    /// One transfer: bytes done, bytes in all when known, since when.
    struct Transfer {
        var done: Int64 = 0
        var total: Int64?
        var started: Double
    }

    /// A meter whose line starts with `verb`.
    package init(verb: String, delay: Double = 0.5, interval: Double = 0.25) {
        self.verb = verb
        self.delay = delay
        self.interval = interval
    }

    /// A meter when standard error is a terminal, else nil: progress is for a person watching.
    package static func forTerminal(verb: String) -> ProgressMeter? {
        isatty(STDERR_FILENO) != 0 ? ProgressMeter(verb: verb) : nil
    }

    /// A transfer of `total` bytes (nil: not known, as from a pipe) begins.
    package func start(_ name: String, total: Int64?) {
        let now = Timestamp.monotonicSeconds()
        state.withLock { state in
            state.transfers[name] = Transfer(total: total, started: now)
            if state.started == nil { state.started = now }
        }
    }

    /// `done` bytes of `name` are through (libcurl rewinding to send again sets it back).
    package func update(_ name: String, done: Int64) {
        let now = Timestamp.monotonicSeconds()
        let line: String? = state.withLock { state in
            state.transfers[name]?.done = done
            guard let started = state.started, now - started >= delay else { return nil }
            if let drawn = state.drawn, now - drawn < interval { return nil }
            state.drawn = now
            return ProgressMeter.line(verb: verb, state.transfers.values, now: now)
        }
        if let line { ProgressMeter.show(line) }
    }

    /// `name` ended: when it was the last and the meter was shown, its final state stays on its line.
    package func finish(_ name: String) {
        let now = Timestamp.monotonicSeconds()
        let line: String? = state.withLock { state in
            guard let ended = state.transfers.removeValue(forKey: name) else { return nil }
            guard state.drawn != nil, state.transfers.isEmpty else { return nil }
            state.drawn = nil
            state.started = nil
            return ProgressMeter.line(verb: verb, [ended], now: now, final: true)
        }
        if let line { ProgressMeter.show(line, final: true) }
    }
}

extension ProgressMeter {
    /// The meter line on screen, "" when none: a `Log` line clears it, goes above it and draws it again.
    static let screen = Locked("")

    /// Draws `line` over the meter's line; `final` ends it, so what follows starts below.
    static func show(_ line: String, final: Bool = false) {
        screen.withLock { shown in
            shown = final ? "" : line
            let text = "\r" + line + "\u{1B}[K" + (final ? "\n" : "")
            try? FileDescriptor(rawValue: STDERR_FILENO).writeAll(Array(text.utf8))
        }
    }

    /// Writes `bytes` (whole lines) to standard error above the meter's line, when one is shown.
    static func printing(_ bytes: [UInt8]) {
        screen.withLock { shown in
            let output = FileDescriptor(rawValue: STDERR_FILENO)
            guard !shown.isEmpty else {
                try? output.writeAll(bytes)
                return
            }
            try? output.writeAll(Array("\r\u{1B}[K".utf8) + bytes + Array(("\r" + shown + "\u{1B}[K").utf8))
        }
    }

    /// The meter's text for `transfers` at `now`: one names its share, speed and time left
    /// (`45%  90.0 MiB of 200 MiB  12.5 MiB/s  0:00:09 left`); several are summed under their count.
    static func line(verb: String, _ transfers: some Collection<Transfer>, now: Double, final: Bool = false)
        -> String
    {
        let done = transfers.reduce(0) { $0 + $1.done }
        let totals = transfers.map(\.total)
        let total: Int64? = totals.contains(nil) ? nil : totals.reduce(0) { $0 + $1! }
        let started = transfers.map(\.started).min() ?? now
        let elapsed = max(now - started, 0.001)
        let speed = Double(done) / elapsed
        var parts = [transfers.count == 1 ? verb : "\(verb) \(transfers.count) payloads"]
        if let total, total > 0 {
            let percent = String(min(100, done * 100 / total))
            parts.append(String(repeating: " ", count: 3 - percent.count) + percent + "%")
        }
        parts.append(total.map { "\(humanSize(Int(done))) of \(humanSize(Int($0)))" } ?? humanSize(Int(done)))
        parts.append("\(humanSize(Int(speed)))/s")
        if final {
            parts.append("in \(clock(elapsed))")
        } else if let total, speed > 0 {
            parts.append("\(clock(Double(total - done) / speed)) left")
        }
        return parts.joined(separator: "  ")
    }

    /// A duration as curl's meter shows it: `0:00:09`.
    static func clock(_ seconds: Double) -> String {
        let whole = Int(min(seconds, 359_999).rounded(.up))
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(whole / 3600):\(two(whole / 60 % 60)):\(two(whole % 60))"
    }
}
