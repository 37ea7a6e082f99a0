import Testing
@testable import SpoolSystem
@testable import SpoolNames
@testable import SpoolQueue
@testable import SpoolSending

/// The learned rate, on a virtual clock against a model of nginx's `limit_req` (`rate`, `burst`, `nodelay`:
/// the excess over the rate is answered 429 at once, without headers). The same limiter runs for real in
/// PacedOriginTests; here the learning itself is checked over many rates in milliseconds.
@Suite struct OriginPacerTests {
    /// nginx's leaky bucket: a request is accepted while the excess, drained at `rate`, stays within `burst`.
    struct Limiter {
        var rate: Double
        let burst: Double
        var excess = 0.0, last: Double?

        mutating func accepts(at now: Double) -> Bool {
            let drained = max(0, excess - rate * (now - (last ?? now)))
            last = now
            if drained + 1 > burst + 1 { excess = drained; return false }
            excess = drained + 1
            return true
        }
    }

    /// What one simulated run gave: its length, and the times of the requests answered 429 and accepted.
    struct Run {
        var seconds = 0.0
        var refused: [Double] = [], accepted: [Double] = []
        func refusedShare(after start: Double) -> Double {
            let late = refused.filter { $0 >= start }.count
            return Double(late) / Double(max(1, late + accepted.filter { $0 >= start }.count))
        }
    }

    /// Sends `count` writes as fast as the window lets one lane (answers after 1 ms), from `startSeconds`.
    func simulate(_ window: inout OriginState, _ limiter: inout Limiter, count: Int, startSeconds: Double = 0,
                  change: ((Double, inout Limiter) -> Void)? = nil) -> Run {
        var run = Run(), now = startSeconds
        while run.accepted.count < count, now - startSeconds < 600 {
            change?(now - startSeconds, &limiter)
            switch window.admit(nowSeconds: now) {
            case let .go(ticket):
                let ok = limiter.accepts(at: now)
                if ok { run.accepted.append(now - startSeconds) } else { run.refused.append(now - startSeconds) }
                now += 0.001
                _ = window.finish(ticket: ticket, ok ? .answered : .pushedBack)
                _ = window.pace(status: ok ? 204 : 429, ticket: ticket, nowSeconds: now)
            case let .wait(seconds): now += seconds
            case let .paused(until): now = until
            case .full: Issue.record("one lane never fills the window"); return run
            }
        }
        run.seconds = now - startSeconds
        return run
    }

    @Test(arguments: [(10.0, 100), (40.0, 400), (200.0, 2000), (500.0, 5000)])
    func findsTheLimitWithin2xTheIdealTime(rate: Double, count: Int) {
        var window = OriginState(maximum: 32)
        var limiter = Limiter(rate: rate, burst: 8)
        let run = simulate(&window, &limiter, count: count)
        let ideal = Double(count - 8) / rate
        #expect(run.seconds <= 2 * ideal, "\(count) at \(rate)/s in \(run.seconds) s (ideal \(ideal) s)")
        #expect(run.refusedShare(after: 2) <= 0.05, "429s after 2 s: \(run.refusedShare(after: 2))")
        print(
            "pacer model: \(Int(rate))/s, \(count) writes in \(String(format: "%.1f", run.seconds)) s (ideal "
                + "\(String(format: "%.1f", ideal))), \(run.refused.count) answered 429, "
                + "\(String(format: "%.1f", 100 * run.refusedShare(after: 2)))% after 2 s; learned "
                + "\(String(format: "%.1f", window.pacer.rate ?? 0))/s")
    }

    @Test func aSecondRunStartsFromTheLearnedRate() {
        var window = OriginState(maximum: 32)
        var limiter = Limiter(rate: 40, burst: 8)
        let start = 1_000_000.0
        let first = simulate(&window, &limiter, count: 400, startSeconds: start)
        let record = window.record("http://h", nowSeconds: Int64(start + first.seconds))
        var next = OriginState(maximum: 32)
        next.restore(record, nowSeconds: start + first.seconds + 10)
        // Ten seconds after the last cut the curve is past its recovery: the run starts at the limit learned.
        #expect(next.pacer.rate == record.learnedLimit && abs(record.learnedLimit - 40) < 8, "\(record.line)")
        var rested = Limiter(rate: 40, burst: 8)
        let second = simulate(&next, &rested, count: 400, startSeconds: start + first.seconds + 10)
        let early = { (run: Run) in run.refused.filter { $0 < 1 }.count }
        #expect(early(second) * 2 <= early(first), "429s in the first second: \(early(first)), then \(early(second))")
        #expect(second.seconds <= first.seconds + 0.5)
        print("pacer model: a second run at 40/s: \(early(first)) then \(early(second)) answered 429 in the first second")
        var stale = OriginState(maximum: 32)
        stale.restore(record, nowSeconds: start + first.seconds + OriginPacer.memorySeconds + 60)
        #expect(stale.pacer.rate == nil, "forgotten after a day without news")
    }

    @Test func followsALimitThatIsHalvedAndRestored() {
        var window = OriginState(maximum: 32)
        var limiter = Limiter(rate: 40, burst: 8)
        let run = simulate(&window, &limiter, count: 1200) { seconds, limiter in
            limiter.rate = seconds >= 10 && seconds < 20 ? 20 : 40
        }
        func delivered(_ from: Double, _ to: Double) -> Double {
            Double(run.accepted.filter { $0 >= from && $0 < to }.count) / (to - from)
        }
        #expect(delivered(14, 20) >= 16 && delivered(14, 20) <= 22, "halved: \(delivered(14, 20))/s")
        #expect(delivered(25, 30) >= 32, "restored: \(delivered(25, 30))/s")
        #expect(run.refusedShare(after: 2) <= 0.05)
    }

    @Test func oneCutPerRoundAndAnOriginThatOnlyRefusesIsStillTried() {
        var pacer = OriginPacer()
        pacer.accepted(nowSeconds: 0.9)
        for i in 1...10 { pacer.accepted(nowSeconds: 1 + Double(i) * 0.05) }
        #expect(pacer.rate == nil, "not paced before a push-back")
        let cut = pacer.pushedBack(nowSeconds: 1.5, ticket: 11, started: 14)
        #expect(cut)
        #expect(abs(pacer.rate! - 20 * OriginPacer.cutFactor) < 0.01, "10 accepted in 0.5 s: 20/s, cut to 17/s")
        let early = pacer.pushedBack(nowSeconds: 1.5, ticket: 13, started: 14)
        #expect(!early, "sent before the cut")
        let later = pacer.pushedBack(nowSeconds: 1.6, ticket: 15, started: 15)
        #expect(later)
        var refusing = OriginPacer()
        for i in 0..<40 { refusing.pushedBack(nowSeconds: Double(i), ticket: i + 1, started: i + 1) }
        #expect(refusing.rate == OriginPacer.lowestRate, "one request a minute, never none")
    }
}
