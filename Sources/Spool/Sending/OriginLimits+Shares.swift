import SpoolQueue
import SpoolSystem

/// The shares of one origin in a spool many users drop into (`OriginRecord.share`): each producer's writes
/// have a window, rate and pause of their own, and together keep to the origin's `max-concurrency`. When
/// they wait for room there, a request that ends hands its room to the lane of the share served longest ago
/// (round robin by producer), and no newcomer passes the lanes already waiting.
extension OriginLimits {
    /// The origin of `share`, without a look at it while no producer has a share.
    static func origin(_ share: String, _ state: State) -> String {
        state.hasShares ? String(OriginRecord.origin(ofShare: share)) : share
    }

    /// Whether a request to `share`, whose own window has room, may join its origin's: the origin has room
    /// over all its shares, and no other lane waits there (it would pass them).
    func mayJoin(_ share: String, _ state: State) -> Bool {
        let origin = OriginRecord.origin(ofShare: share)
        if let waiting = state.waiters[String(origin)], !waiting.isEmpty { return false }
        return originHasRoom(origin, state)
    }

    /// Whether `origin` has room for one more request over all its shares: its `max-concurrency` is the
    /// server's, whoever's writes fill it.
    func originHasRoom(_ origin: Substring, _ state: State) -> Bool {
        var total = 0
        for (other, window) in state.windows where OriginRecord.origin(ofShare: other) == origin {
            total += window.inFlight
        }
        let most = withConfiguration { $0.settings(for: String(origin)).maxConcurrency } ?? concurrency
        return total < min(concurrency, most)
    }

    /// Notes that a request of `share` was let go, for the turns.
    static func served(_ share: String, _ state: inout State) {
        state.servedCount += 1
        state.lastServed[share] = state.servedCount
    }

    /// The lanes waiting at `share`'s origin to wake now, each with the ticket it was handed, or nil to ask
    /// again (its share is paused or paced: it learns so itself). Without shares, every lane waiting there,
    /// to ask again, as before shares. With them, the lanes the origin has room for, the share served
    /// longest ago first; the others keep waiting, each woken when a request of its origin ends.
    func handOff(_ share: String, _ state: inout State) -> [(CheckedContinuation<Int?, Never>, Int?)] {
        guard !state.waiters.isEmpty else { return [] }
        let origin = OriginLimits.origin(share, state)
        guard var queue = state.waiters.removeValue(forKey: origin) else { return [] }
        guard state.hasShares else { return queue.map { ($0.waiter, nil) } }
        var woken: [(CheckedContinuation<Int?, Never>, Int?)] = []
        while !queue.isEmpty, originHasRoom(origin[...], state) {
            let ready = queue.indices.filter { index in
                let window = state.windows[queue[index].share]!
                return window.inFlight < OriginLimits.room(queue[index].share, state, window: window.window)
            }
            guard let pick = ready.min(by: { a, b in
                (state.lastServed[queue[a].share] ?? 0, a) < (state.lastServed[queue[b].share] ?? 0, b)
            }) else { break }
            let next = queue.remove(at: pick)
            if case let .go(ticket) = state.windows[next.share]!.admit(nowSeconds: Timestamp.nowFractionalSeconds()) {
                OriginLimits.served(next.share, &state)
                woken.append((next.waiter, ticket))
            } else {
                woken.append((next.waiter, nil))
            }
        }
        if !queue.isEmpty { state.waiters[origin] = queue }
        return woken
    }
}
