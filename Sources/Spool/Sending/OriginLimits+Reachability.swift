import SpoolQueue
import SpoolSystem

/// Whether an origin can be reached, across runs: under cron, an origin that refuses connections is said
/// once when it becomes unreachable and once when it answers again, not in every run between (`.origins`
/// keeps `unreachable-since`).
extension OriginLimits {
    /// Notes that `origin` could not be reached in this run; returns since when it was unreachable already,
    /// nil when this is news (the run says it once; later runs say it with `-v` only, until it answers).
    package func unreachable(_ origin: String, nowSeconds: Int64) -> Int64? {
        state.withLock { state in
            let index = windowIndex(origin, &state)
            let since = state.windows.values[index].unreachableSince
            if since > 0 { return since }
            state.windows.values[index].unreachableSince = nowSeconds
            state.anyUnreachable = true
            state.changed = true
            return nil
        }
    }

    /// `share`'s origin answered: if it was unreachable, that ended now.
    static func noteAnswered(_ share: String, _ state: inout State) {
        let origin = OriginLimits.origin(share, state)
        guard let since = state.windows[origin]?.unreachableSince, since > 0 else { return }
        state.windows[origin]!.unreachableSince = 0
        state.recovered[origin] = since
        state.anyUnreachable = state.windows.values.contains { $0.unreachableSince > 0 }
    }

    /// The origins that answered in this run after being unreachable, with since when; each told once.
    package func takeRecovered() -> [(origin: String, since: Int64)] {
        state.withLock { state in
            defer { state.recovered.removeAll() }
            return state.recovered.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        }
    }

    /// What holds `share` back at `nowSeconds`, in a pause line's words: the server's `Retry-After`, a used-up
    /// quota, or spool's own learned rate, whichever it is.
    package func pauseCause(_ share: String, nowSeconds: Double) -> String {
        state.withLock { state in
            loadSeeds(&state)
            let window = state.windows[share]
            let paused = window.map { $0.pausedUntil > nowSeconds } ?? false
            let cause = paused ? window!.pauseCause : state.seeds?[share]?.pausedBy ?? ""
            if let said = OriginRecord.pauseCause(cause) { return said }
            if !paused, let rate = window?.rate { return "its learned rate of \(OriginRecord.format(rate: rate))/s" }
            return "the server asked for it"
        }
    }
}
