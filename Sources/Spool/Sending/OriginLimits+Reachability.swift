import SpoolNames
import SpoolQueue
import SpoolSystem

/// Whether an origin is up, across runs. An origin that accepts nothing (no connection: unreachable; every
/// answer a 429 or 503 without an instruction: unavailable) is down, not slow: it teaches no rate, and is
/// probed again on its own backoff (`OriginLimits.probeBackoff`), kept in `.origins` as a pause, so that the
/// runs between leave its writes by their names. Under cron it is said once when it goes down and once
/// when it accepts again, not in every run between (`.origins` keeps `unreachable-since`).
extension OriginLimits {
    /// Notes that `origin` could not be reached in this run; returns since when it was down already, nil
    /// when this is news (the run says it once; later runs say it with `-v` only, until it answers).
    package func unreachable(_ origin: String, nowSeconds: Int64) -> Int64? {
        state.withLock { state in
            let index = windowIndex(origin, &state)
            let since = state.windows.values[index].unreachableSince
            // Said by the sender's report of its blocks, not as an unavailable origin.
            down(origin, cause: "unreachable", nowSeconds: Double(nowSeconds), told: false, &state)
            return since > 0 ? since : nil
        }
    }

    /// `share`'s origin is down (`cause`) at `nowSeconds`: paused until its next probe, which goes alone;
    /// when it was up, it goes into the run's report unless `told` is false (its caller says it).
    func down(_ share: String, cause: String, nowSeconds: Double, told: Bool = true, _ state: inout State) {
        let origin = OriginLimits.origin(share, state)
        let index = windowIndex(origin, &state)
        let wasUp = state.windows.values[index].unreachableSince == 0
        let until = state.windows.values[index].down(nowSeconds: nowSeconds, cause: cause, backoff: probeBackoff)
        if wasUp, told { state.wentDown[origin] = (cause, until) }
        state.answered.remove(origin)
        state.answeredHashes.remove(OrderingKey.originHash(origin))
        state.anyUnreachable = true
        state.changed = true
    }

    /// Lifts the backoff of every origin down for `cause` (the network changed): each is probed at once.
    /// Returns those origins.
    package func liftBackoff(cause: String) -> [String] {
        state.withLock { state in
            loadSeeds(&state)
            for (share, record) in state.seeds ?? [:] where record.pausedBy == cause { _ = windowIndex(share, &state) }
            var lifted: [String] = []
            for (share, window) in state.windows where window.pauseCause == cause && window.pausedUntil > 0 {
                state.windows[share]!.liftPause()
                lifted.append(share)
            }
            if !lifted.isEmpty { state.changed = true }
            return lifted.sorted()
        }
    }

    /// `share`'s origin accepted a request: if it was down, that ended now.
    static func noteAnswered(_ share: String, _ state: inout State) {
        let origin = OriginLimits.origin(share, state)
        guard let window = state.windows[origin], window.unreachableSince > 0 else { return }
        state.recovered[origin] = (window.unreachableSince, window.pauseCause)
        state.windows[origin]!.up()
        state.anyUnreachable = state.windows.values.contains { $0.unreachableSince > 0 }
    }

    /// The origins that accepted in this run after being down, with since when and why; each told once.
    package func takeRecovered() -> [(origin: String, since: Int64, cause: String)] {
        state.withLock { state in
            defer { state.recovered.removeAll() }
            return state.recovered.sorted { $0.key < $1.key }.map { ($0.key, $0.value.since, $0.value.cause) }
        }
    }

    /// The origins found unavailable in this run that were up before, with their next probe; each told once.
    package func takeWentDown() -> [(origin: String, cause: String, until: Double)] {
        state.withLock { state in
            defer { state.wentDown.removeAll() }
            return state.wentDown.sorted { $0.key < $1.key }.map { ($0.key, $0.value.cause, $0.value.until) }
        }
    }

    /// Whether the pause of `share` ending at `until` is news to say at the default level: the origin's
    /// instruction, the first since it last accepted a request, in this run or an earlier one (spool's own
    /// waits, its pace and a down origin's backoff, are said with `-v`: a down origin was said when it went
    /// down). Marks it said.
    package func announce(_ share: String, until: Int64) -> Bool {
        state.withLock { state in
            let index = windowIndex(share, &state)
            let window = state.windows.values[index]
            guard window.announcedUntil == 0 else { return false }
            state.windows.values[index].announcedUntil = until
            state.changed = true
            return OriginRecord.isInstruction(window.pauseCause)
        }
    }

    /// What holds `share` back at `nowSeconds`, in a pause line's words: the server's `Retry-After`, a used-up
    /// quota, spool's own learned rate, or the origin being down, whichever it is.
    package func pauseCause(_ share: String, nowSeconds: Double) -> String {
        state.withLock { state in
            loadSeeds(&state)
            let window = state.windows[share]
            let seed = state.seeds?[share]
            let paused = window.map { $0.pausedUntil > nowSeconds } ?? false
            // A window's cause even when its pause is over: the line says what held the run's writes back.
            let cause = window.map(\.pauseCause) ?? seed?.pausedBy ?? ""
            if let rate = window?.rate ?? seed.map(\.learnedRate), rate > 0, cause == "rate" || !paused {
                return "spool's learned rate of \(OriginRecord.format(rate: rate))/s"
            }
            let since = window?.unreachableSince ?? seed?.unreachableSince ?? 0
            if OriginRecord.isDown(cause), since > 0 { return "\(cause) since \(Timestamp.formatRFC3339(since))" }
            return OriginRecord.pauseCause(cause) ?? "the server asked for it"
        }
    }
}
