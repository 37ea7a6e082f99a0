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

@Suite struct BackoffTests {
    @Test func doublesWithJitterUpToTheMaximum() {
        let backoff = Backoff(minimum: 30, maximum: 3600)
        #expect(backoff.delay(afterAttempts: 1, random: 1) == 30)
        #expect(backoff.delay(afterAttempts: 1, random: 0) == 15)
        #expect(backoff.delay(afterAttempts: 2, random: 1) == 60)
        #expect(backoff.delay(afterAttempts: 3, random: 0.5) == 90)
        #expect(backoff.delay(afterAttempts: 8, random: 1) == 3600)
        #expect(backoff.delay(afterAttempts: 500, random: 1) == 3600)
        #expect(backoff.delay(afterAttempts: 1, retryAfter: 120, random: 1) == 120)
    }

    @Test func zeroBackoffForTests() {
        #expect(Backoff(minimum: 0, maximum: 0).delay(afterAttempts: 5) == 0)
    }
}
