import SpoolQueue
import SpoolSystem
import SpoolTransport

/// What happens to an operation after an attempt: the three-way result of nullmailer, plus conflicts.
package enum Outcome: Equatable, Sendable {
    /// Done: the file is removed.
    case done
    /// Temporary: back to `new/` with one more attempt; `retryAfter` is the server's minimum delay in seconds,
    /// `details` what the answer said (status, body start) for the kept reason.
    case retry(token: String, reason: String, retryAfter: Int64?, takesOriginDown: Bool, details: [Field] = [])
    /// The origin pushed back (429, or 503): its signal, not the operation's failure. The operation keeps
    /// its place and its attempt count and goes again when the origin's rate allows (`retryAfter`: the
    /// origin's own pause, which `OriginLimits` obeys for the whole origin).
    case pushedBack(token: String, reason: String, retryAfter: Int64?, details: [Field] = [])
    /// The server refused the write as conflicting: filed in `conflict/` for a human.
    case conflict(reason: [Field])
    /// Permanent: filed in `failed/`.
    case failed(reason: [Field])

    /// One `name: value` line of a reason.
    package struct Field: Equatable, Sendable {
        /// The field's name, such as `reason`, `status` or `exit-status`.
        package let name: String
        /// Its text, as the reason shows it after the name.
        package let value: String
        /// The field `name: value`.
        package init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    /// Statuses that mean "try again later" (RFC 9110, RFC 6585, RFC 8470).
    package static let temporaryStatuses: Set<Int> = [408, 425, 429, 500, 502, 503, 504]

    /// Decides the outcome of one attempt from the method and what the transport returned.
    package static func classify(method: String, result: Result<HTTPResponse, TransportError>, nowSeconds: Int64)
        -> Outcome
    {
        let response: HTTPResponse
        switch result {
        case let .failure(.tooLarge(message)):
            return .failed(reason: [
                Field("reason", "the server's answer could not be read: \(message); the write may have been applied")
            ])
        case let .failure(failure):
            // Temporary; the lost response above all, since the write may have been applied: it is retried
            // with the same Idempotency-Key.
            return .retry(
                token: failure.token, reason: failure.description, retryAfter: nil,
                takesOriginDown: failure.takesOriginDown)
        case let .success(r): response = r
        }
        let status = response.status
        let retryAfter = response.headers["retry-after"].flatMap { RetryAfter.seconds($0, nowSeconds: nowSeconds) }
        var reason = [Field("status", "\(status)")]
        if let etag = response.headers["etag"] { reason.append(Field("etag", etag)) }
        if !response.body.isEmpty {
            reason.append(Field("body", String(decoding: response.body.prefix(512), as: UTF8.self)))
        }
        switch status {
        case 200..<300:
            return .done
        case 404 where method.uppercased() == "DELETE", 410 where method.uppercased() == "DELETE":
            return .done
        case 409 where response.headers["retry-after"] != nil:
            // draft-ietf-httpapi-idempotency-key-header: the same key is still being processed.
            return .retry(
                token: "409", reason: "HTTP 409 with Retry-After (request with this key still in progress)",
                retryAfter: retryAfter, takesOriginDown: false,
                details: reason)
        case 429, 503:
            return .pushedBack(token: "\(status)", reason: "HTTP \(status)", retryAfter: retryAfter, details: reason)
        case 409, 412:
            return .conflict(
                reason: [Field("reason", "the server refused the write as conflicting (HTTP \(status))")] + reason)
        case _ where temporaryStatuses.contains(status):
            return .retry(
                token: "\(status)", reason: "HTTP \(status)", retryAfter: retryAfter, takesOriginDown: false,
                details: reason)
        case 300..<400:
            let location = response.headers["location"].map { "; Location: \($0)" } ?? ""
            return .failed(
                reason: [
                    Field(
                        "reason",
                        "the server answered with a redirect (HTTP \(status))\(location); spool does not follow "
                            + "redirects, fix the URL"
                    )
                ] + reason)
        default:
            return .failed(reason: [Field("reason", "the server rejected the write (HTTP \(status))")] + reason)
        }
    }
}

/// The `Retry-After` header (RFC 9110 section 10.2.3): delay seconds or an HTTP date.
package enum RetryAfter {
    /// The longest delay taken from a server, whatever it says: 30 days.
    package static let longest: Int64 = 30 * 86400

    /// Seconds to wait from `nowSeconds`, at most `longest`, or nil when the value is neither form.
    package static func seconds(_ value: String, nowSeconds: Int64) -> Int64? {
        let text = value.trimmingWhitespace()
        if let n = Int64(text) { return n >= 0 ? min(n, longest) : nil }
        return httpDate(text).map { min(max(0, $0 - nowSeconds), longest) }
    }

    /// Parses an IMF-fixdate such as `Sun, 06 Nov 1994 08:49:37 GMT` into epoch seconds.
    package static func httpDate(_ text: String) -> Int64? {
        let parts = text.split(separator: " ")
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        guard parts.count == 6, parts[5] == "GMT", let day = Int(parts[1]),
            let month = months.firstIndex(of: String(parts[2])),
            let year = Int(parts[3])
        else { return nil }
        let clock = parts[4].split(separator: ":").compactMap { Int($0) }
        guard clock.count == 3 else { return nil }
        func two(_ n: Int) -> String { String(n).leftPadded(to: 2) }
        let date = "\(String(year).leftPadded(to: 4))-\(two(month + 1))-\(two(day))"
        let iso = "\(date)T\(two(clock[0])):\(two(clock[1])):\(two(clock[2]))Z"
        return Timestamp.parseRFC3339(iso)
    }
}

extension FilingReason {
    /// A reason made of an outcome's fields.
    package init(_ fields: [Outcome.Field]) { self.init(fields.map { ($0.name, $0.value) }) }
}
