import SpoolTransport

/// What an origin's answer says: its load for the window, and the pause, quota or rate it asks for.
extension OriginLimits {
    /// What an answer says about the origin's load.
    package static func signal(_ result: Result<HTTPResponse, TransportError>) -> OriginState.Signal {
        switch result {
        case let .success(response):
            switch response.status {
            case 429, 503: .pushedBack
            case 500..<600: .neutral
            default: .answered
            }
        case .failure(.timeout), .failure(.refused), .failure(.lost): .pushedBack
        case .failure: .neutral
        }
    }

    /// The pauses and the rate an answer asks for: `Retry-After` on a 429 or 503 pauses the whole origin,
    /// and so does a used-up quota in the rate-limit headers. Returns whether the answer was such an
    /// instruction to a push-back (a 429 or 503 with `Retry-After` or a used-up quota): then no rate is learned
    /// from it, since the origin said what it wants.
    @discardableResult
    package static func apply(_ response: HTTPResponse, to window: inout OriginState, nowSeconds: Double) -> Bool {
        let pushedBack = response.status == 429 || response.status == 503
        var instructed = false
        if response.status == 429 { window.countTooManyRequests() }
        if pushedBack,
            let delay = response.headers["retry-after"].flatMap({
                RetryAfter.seconds($0, nowSeconds: Int64(nowSeconds))
            }), delay > 0
        {
            window.pause(until: nowSeconds + Double(delay), nowSeconds: nowSeconds, cause: "retry-after")
            instructed = true
        }
        let limits = RateLimitHeaders(response.headers, nowSeconds: Int64(nowSeconds))
        if let rate = limits.rate { window.announce(rate: rate) }
        if let pause = limits.pauseSeconds {
            window.pause(until: nowSeconds + pause, nowSeconds: nowSeconds, cause: "quota")
            instructed = true
        }
        return pushedBack && instructed
    }
}
