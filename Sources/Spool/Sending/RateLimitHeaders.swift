import SpoolConfiguration
import SpoolDocument
import SpoolHandlers
import SpoolNames
import SpoolQueue
import SpoolSystem
import SpoolTransport

/// What an origin says about its limits in its answers: the `RateLimit-Policy` and `RateLimit` fields of
/// draft-ietf-httpapi-ratelimit-headers (from draft-06's `10;w=1` to draft-10's `"default";q=10;w=1` and
/// `"default";r=0;t=5`), the earlier drafts' `RateLimit-Remaining` / `RateLimit-Reset`, and the common
/// `X-RateLimit-Remaining` / `X-RateLimit-Reset`. Read leniently: a value that does not parse says nothing.
package struct RateLimitHeaders: Sendable, Equatable {
    /// The requests per second the lowest of the announced policies allows.
    package var rate: Double?
    /// Seconds to send nothing for: the quota is used up until its reset.
    package var pauseSeconds: Double?

    /// The longest pause taken from a reset, whatever the origin says: a day.
    package static let longestPauseSeconds = 86400.0

    /// Reads the headers of one answer (names lower-cased); `nowSeconds` is for resets given as epoch seconds.
    package init(_ headers: [String: String], nowSeconds: Int64) {
        // Most answers carry none of these fields: one look at the names, rather than six lookups.
        guard headers.keys.contains(where: { $0.hasPrefix("ratelimit") || $0.hasPrefix("x-ratelimit-") }) else {
            return
        }
        if let policy = headers["ratelimit-policy"] { rate = RateLimitHeaders.policyRate(policy) }
        var remaining: Double?, reset: Double?
        if let current = headers["ratelimit"] { (remaining, reset) = RateLimitHeaders.current(current) }
        for prefix in ["ratelimit-", "x-ratelimit-"] where remaining == nil {
            remaining = headers[prefix + "remaining"].flatMap { RateLimitHeaders.number($0.trimmingWhitespace()) }
            reset = headers[prefix + "reset"].flatMap { RateLimitHeaders.number($0.trimmingWhitespace()) }
        }
        guard remaining == 0, var reset, reset > 0 else { return }
        // A reset larger than any delay is a time (GitHub's X-RateLimit-Reset is epoch seconds).
        if reset > 1_000_000_000 { reset -= Double(nowSeconds) }
        if reset > 0 { pauseSeconds = min(reset, RateLimitHeaders.longestPauseSeconds) }
    }

    /// The items of a list field: each a leading value and its `;name=value` parameters.
    package static func items(_ field: String) -> [(value: String, parameters: [String: String])] {
        field.split(separator: ",").map { item in
            let parts = item.split(separator: ";").map { $0.trimmingWhitespace() }
            var parameters: [String: String] = [:]
            for part in parts.dropFirst() {
                let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
                if pair.count == 2 { parameters[pair[0].lowercased()] = pair[1] }
            }
            return (parts.first ?? "", parameters)
        }
    }

    /// The lowest quota per second among the policies: `10;w=1` or `"name";q=10;w=1`.
    package static func policyRate(_ field: String) -> Double? {
        var lowest: Double?
        for item in items(field) {
            guard let quota = number(item.parameters["q"] ?? item.value), quota > 0,
                  let window = item.parameters["w"].flatMap(number), window > 0 else { continue }
            lowest = min(lowest ?? .infinity, quota / window)
        }
        return lowest
    }

    /// Remaining quota and seconds to its reset from `RateLimit`: `"name";r=0;t=5`, or draft-05's
    /// `limit=10, remaining=0, reset=5`.
    package static func current(_ field: String) -> (remaining: Double?, reset: Double?) {
        var remaining: Double?, reset: Double?
        for item in items(field) {
            if let r = item.parameters["r"].flatMap(number) {
                if remaining == nil || r < remaining! {
                    (remaining, reset) = (r, item.parameters["t"].flatMap(number))
                }
                continue
            }
            let pair = item.value.split(separator: "=", maxSplits: 1).map { $0.trimmingWhitespace() }
            guard pair.count == 2, let value = number(pair[1]) else { continue }
            if pair[0] == "remaining" { remaining = value } else if pair[0] == "reset" { reset = value }
        }
        return (remaining, reset)
    }

    /// A count or a number of seconds: digits, maybe with a point and a fraction (Structured Fields' integers
    /// and decimals, and the X-RateLimit-* fields' epoch seconds with microseconds), never negative, never more
    /// than 15 digits before the point or 9 after. `Double(_:)` alone would also read `1e400` (infinity), `nan`
    /// and `0x10`, and a window of infinity made a rate of 0.
    package static func number<Text: StringProtocol>(_ text: Text) -> Double? {
        let parts = text.utf8.split(separator: UInt8(ascii: "."), maxSplits: 1, omittingEmptySubsequences: false)
        let isDigits = { (part: Text.UTF8View.SubSequence) in part.allSatisfy { (0x30...0x39).contains($0) } }
        guard let whole = parts.first, (1...15).contains(whole.count), isDigits(whole) else { return nil }
        if parts.count == 2 { guard (1...9).contains(parts[1].count), isDigits(parts[1]) else { return nil } }
        return Double(String(text))
    }
}
