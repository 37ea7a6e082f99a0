import Testing
@testable import Spool
@testable import SpoolSystem
@testable import SpoolTransport
@testable import SpoolNames
@testable import SpoolDocument
@testable import SpoolConfiguration
@testable import SpoolQueue
@testable import SpoolHandlers
@testable import SpoolSending
@testable import SpoolReporting
@testable import SpoolControl

/// The rate-limit headers of the drafts and of common APIs.
@Suite struct RateLimitHeadersTests {
    @Test func policiesOfEveryDraft() {
        #expect(RateLimitHeaders(["ratelimit-policy": "10;w=1"], nowSeconds: 0).rate == 10)
        #expect(RateLimitHeaders(["ratelimit-policy": "100;w=60, 1000;w=3600"], nowSeconds: 0).rate == 1000.0 / 3600)
        #expect(RateLimitHeaders(["ratelimit-policy": #""default";q=100;w=10"#], nowSeconds: 0).rate == 10)
        #expect(RateLimitHeaders(["ratelimit-policy": "garbage"], nowSeconds: 0).rate == nil)
    }

    /// What the fuzzer found (Tests/Corpus/fuzz/headers/policy-window-infinite): `w=1.e400` was read as an
    /// infinite window, and a policy's rate as 0 requests a second. Numbers are digits with at most
    /// one point.
    @Test func numbersAreIntegersOrShortDecimals() {
        #expect(RateLimitHeaders.policyRate("10;w=1,10;w=1.e400") == 10)
        for text in ["1e400", "1.e4", "inf", "nan", "0x10", "-1", "+1", "1.", ".5", "1.1234567890", "1234567890123456", ""] {
            #expect(RateLimitHeaders.number(text) == nil, "\(text)")
        }
        #expect(RateLimitHeaders.number("60") == 60 && RateLimitHeaders.number("0.5") == 0.5)
        #expect(RateLimitHeaders.number("1700000000.123456") == 1700000000.123456, "epoch seconds with microseconds")
        #expect(RateLimitHeaders.policyRate("q=1;w=nan") == nil)
        #expect(RateLimitHeaders(["x-ratelimit-remaining": "0", "x-ratelimit-reset": "1e9"], nowSeconds: 0).pauseSeconds == nil)
    }

    @Test func aUsedUpQuotaPausesUntilItsReset() {
        #expect(RateLimitHeaders(["ratelimit": #""default";r=0;t=5"#], nowSeconds: 0).pauseSeconds == 5)
        #expect(RateLimitHeaders(["ratelimit": #""default";r=3;t=5"#], nowSeconds: 0).pauseSeconds == nil)
        #expect(RateLimitHeaders(["ratelimit": "limit=10, remaining=0, reset=7"], nowSeconds: 0).pauseSeconds == 7)
        #expect(RateLimitHeaders(["ratelimit-remaining": "0", "ratelimit-reset": "3"], nowSeconds: 0).pauseSeconds == 3)
        #expect(
            RateLimitHeaders(
                ["x-ratelimit-remaining": "0", "x-ratelimit-reset": "1800000030"], nowSeconds: 1_800_000_000
            ).pauseSeconds == 30,
            "an epoch reset, as GitHub sends")
        #expect(
            RateLimitHeaders(["x-ratelimit-remaining": "0", "x-ratelimit-reset": "999999"], nowSeconds: 0).pauseSeconds
                == 86400, "at most a day")
        #expect(
            RateLimitHeaders(["x-ratelimit-remaining": "5", "x-ratelimit-reset": "30"], nowSeconds: 0).pauseSeconds
                == nil)
    }

    @Test func whatEachAnswerSaysAboutTheLoad() {
        func answer(_ status: Int) -> Result<HTTPResponse, TransportError> {
            .success(HTTPResponse(status: status, headers: [:], body: []))
        }
        #expect(OriginLimits.signal(answer(204)) == .answered)
        #expect(OriginLimits.signal(answer(404)) == .answered)
        #expect(OriginLimits.signal(answer(429)) == .pushedBack)
        #expect(OriginLimits.signal(answer(503)) == .pushedBack)
        #expect(OriginLimits.signal(answer(500)) == .neutral)
        #expect(OriginLimits.signal(.failure(.timeout)) == .pushedBack)
        #expect(OriginLimits.signal(.failure(.refused)) == .pushedBack)
        #expect(OriginLimits.signal(.failure(.tls("x"))) == .neutral)
    }
}
