import Testing
@testable import SpoolConfiguration
@testable import SpoolQueue
@testable import SpoolSending
@testable import SpoolTransport

/// The window per origin: slow start, one cut per round, slow probing near the last cut, rate, pauses.
@Suite struct OriginStateTests {
    func go(_ window: inout OriginState, nowSeconds: Double = 0) -> Int? {
        if case let .go(ticket) = window.admit(nowSeconds: nowSeconds) { return ticket }
        return nil
    }

    @Test func startsAtFourAndGrowsByOnePerAnswerUntilThePushback() {
        var window = OriginState(maximum: 32)
        let tickets = (0..<4).compactMap { _ in go(&window) }
        #expect(tickets.count == 4 && window.admit(nowSeconds: 0) == .full)
        for ticket in tickets { _ = window.finish(ticket: ticket, .answered) }
        #expect(window.window == 8)
        var many = (0..<40).compactMap { _ in go(&window) }
        #expect(many.count == 8, "never more than the window at once")
        for ticket in many { _ = window.finish(ticket: ticket, .answered) }
        #expect(window.window == 16)
        many = (0..<16).compactMap { _ in go(&window) }
        _ = window.finish(ticket: many[0], .pushedBack)
        #expect(window.window == 8 && window.ceiling == 16)
        for ticket in many.dropFirst(1).prefix(5) { _ = window.finish(ticket: ticket, .pushedBack) }
        #expect(window.window == 8, "requests sent before the cut do not cut again")
        #expect(window.pushbacks == 6)
    }

    @Test func nearTheLastCutTheWindowGrowsSlowly() {
        var window = OriginState(maximum: 32, initial: 4)
        let first = go(&window)!
        _ = window.finish(ticket: first, .pushedBack)
        #expect(window.window == 2 && window.ceiling == 4)
        var answers = 0
        while window.window < 4 {
            let ticket = go(&window)!
            _ = window.finish(ticket: ticket, .answered)
            answers += 1
        }
        // 2 → 3 at 1/w per answer (two answers), then 3 → 4 at 0.1/w (about 35).
        #expect(answers > 30 && answers < 45, "\(answers)")
    }

    @Test func neverBelowOneNorAboveTheMaximum() {
        var window = OriginState(maximum: 3, initial: 10)
        #expect(window.window == 3)
        for _ in 0..<10 {
            let ticket = go(&window)!
            _ = window.finish(ticket: ticket, .pushedBack)
        }
        #expect(window.window == 1)
        for _ in 0..<100 {
            let ticket = go(&window)!
            _ = window.finish(ticket: ticket, .answered)
        }
        #expect(window.window <= 3)
    }

    @Test func aRateSpacesRequests() {
        var window = OriginState(maximum: 32, rate: 10, burst: 2)
        #expect(go(&window, nowSeconds: 100) != nil && go(&window, nowSeconds: 100) != nil, "the burst goes at once")
        guard case let .wait(seconds) = window.admit(nowSeconds: 100) else { Issue.record("a third must wait"); return }
        #expect(abs(seconds - 0.1) < 1e-9)
        #expect(go(&window, nowSeconds: 100.1) != nil)
        window.announce(rate: 1)
        #expect(window.rate == 1, "the lower of the configured and the announced rate")
    }

    @Test func aPauseHoldsEveryRequest() {
        var window = OriginState(maximum: 8)
        window.pause(until: 50, nowSeconds: 0)
        #expect(window.admit(nowSeconds: 49) == .paused(until: 50))
        #expect(go(&window, nowSeconds: 50) != nil)
        window.pause(until: 40, nowSeconds: 0)
        #expect(window.pausedUntil == 50 && window.pauses == 1, "an earlier end does not shorten a pause")
    }

    @Test func whatAnOriginSaysIsBounded() {
        #expect(
            RetryAfter.seconds("9223372036854775807", nowSeconds: 0) == RetryAfter.longest,
            "a Retry-After of 2^63 s is 30 days")
        var window = OriginState(maximum: 4)
        window.pause(until: 1e300, nowSeconds: 100)
        #expect(window.pausedUntil == 100 + 86400, "a pause is a day at most")
        #expect(window.record("http://a.example", nowSeconds: 100).pausedUntil == 100 + 86400)
        window.announce(rate: 1e-300)
        #expect(window.rate == OriginState.lowestRate, "one request a day at the least")
        var slow = OriginState(maximum: 4, rate: 0.1)
        _ = go(&slow, nowSeconds: 0)
        #expect(slow.admit(nowSeconds: 0) == .paused(until: 10), "a wait longer than 5 s is a pause: the lane leaves")
    }

    @Test func aHostileRecordCannotOverflowACount() throws {
        let record = OriginRecord(
            line:
                "http://a.example window=99999 pushbacks=9223372036854775807 too-many-requests=-5 pauses=x "
                    + "announced-rate=inf ceiling=nan paused-until=9223372036854775807"
        )
        #expect(
            record?.window == 256 && record?.pushbacks == OriginRecord.largestCount && record?.tooManyRequests == 0
                && record?.pauses == 0)
        #expect(record?.announcedRate == 0 && record?.ceiling == 0 && record?.pausedUntil == 1 << 40)
        var window = OriginState(maximum: 8)
        window.restore(try #require(record), nowSeconds: 0)
        #expect(window.pausedUntil == 86400, "restored, a pause is a day at most")
        let ticket = try #require(go(&window, nowSeconds: 86400))
        _ = window.finish(ticket: ticket, .pushedBack)
        #expect(window.pushbacks == OriginRecord.largestCount)
        #expect(
            OriginRecord(line: "/etc/passwd window=1") == nil
                && OriginRecord(line: "https://a.example/path window=1") == nil)
    }

    @Test func networkNewsRetriesAtMostOncePerTenSeconds() {
        var retry = NetworkRetry()
        let answers = [(true, 100.0), (true, 103), (false, 109), (false, 110), (false, 200)].map {
            retry.due(changed: $0.0, nowSeconds: $0.1)
        }
        #expect(
            answers == [true, false, false, true, false],
            "at once, held back, then done at the end of the spacing, once")
    }
}
