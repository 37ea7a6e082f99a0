
/// Exponential backoff with jitter: the delay before attempt n+1 after n failed attempts.
package struct Backoff: Sendable, Equatable {
    /// Delay after the first failure, seconds.
    package var minimum: Int64
    /// Largest delay, seconds.
    package var maximum: Int64

    /// A backoff doubling from `minimum` to `maximum`.
    package init(minimum: Int64 = 30, maximum: Int64 = 3600) {
        self.minimum = minimum
        self.maximum = max(minimum, maximum)
    }

    /// The delay after `attempts` failed attempts (1 or more): `minimum · 2^(attempts-1)` capped at `maximum`,
    /// then "equal jitter" (a random point in its upper half) so that many operations that failed together
    /// do not all come back in the same second; never less than the server's `Retry-After`.
    package func delay(afterAttempts attempts: Int, retryAfter: Int64? = nil, random: Double = Double.random(in: 0...1))
        -> Int64
    {
        let exponent = min(max(attempts - 1, 0), 40)
        let (scaled, overflow) = minimum.multipliedReportingOverflow(by: Int64(1) << exponent)
        let base = overflow ? maximum : min(scaled, maximum)
        let jittered = base / 2 + Int64((Double(base - base / 2) * random).rounded())
        return max(jittered, retryAfter ?? 0)
    }
}
