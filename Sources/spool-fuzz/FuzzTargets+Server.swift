import Spool
import SpoolDocument
import SpoolNames
import SpoolQueue
import SpoolSending
import SpoolSystem
import SpoolTransport

extension FuzzTargets {
    /// A server's answer as the engine reads it: its head, split into lines at LF as libcurl hands them on,
    /// then the body. The fields kept are what RFC 9110 allows (token names, no CR, LF or NUL in a value), and
    /// everything spool makes of them holds: the outcome's delays stay bounded, and its reason, written to
    /// `ID.why` and read back, is the same fields with control characters shown as escapes.
    static func head(_ bytes: [UInt8]) {
        // Every line goes to the head, as the engine hands on trailers and later heads too; the body is what
        // follows the first head that ended.
        var head = ResponseHead(limit: 4096)
        var (start, bodyStart) = (0, bytes.count)
        while start < bytes.count {
            let end = bytes[start...].firstIndex(of: 0x0A).map { $0 + 1 } ?? bytes.count
            let more = bytes[start..<end].withUnsafeBufferPointer { head.take($0) }
            start = end
            guard more else { return precondition(head.isTooLarge, "a line refused, the head not too large") }
            if head.isComplete, bodyStart == bytes.count { bodyStart = end }
        }
        precondition(head.status == 0 || (100...999).contains(head.status), "status \(head.status)")
        for (name, value) in head.fields {
            precondition(
                !name.isEmpty
                    && name.utf8.allSatisfy { HTTPSyntax.isTokenCharacter($0) && !(0x41...0x5A).contains($0) },
                "field name \(Array(name.utf8))")
            precondition(!value.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0 }, "\(name): \(Array(value.utf8))")
            precondition(
                value.utf8.first != 0x20 && value.utf8.last != 0x20, "\(name) not trimmed: \(Array(value.utf8))")
        }
        guard head.status > 0 else { return }
        let response = HTTPResponse(status: head.status, headers: head.fields, body: Array(bytes[bodyStart...]))
        let now: Int64 = 1_800_000_000
        var fields: [Outcome.Field] = []
        switch Outcome.classify(method: "PUT", result: .success(response), nowSeconds: now) {
        case .done: break
        case let .retry(_, _, retryAfter, _, details), let .pushedBack(_, _, retryAfter, details):
            precondition(retryAfter.map { (0...RetryAfter.longest).contains($0) } ?? true, "Retry-After \(retryAfter!)")
            fields = details
        case let .conflict(reason), let .failed(reason): fields = reason
        }
        let reason = FilingReason(fields.map { ($0.name, $0.value) })
        let text = reason.text(id: "x", folder: .failed, source: .cur, name: FileName("x"), at: now)
        let back = FilingReason.parseFile(text).fields.suffix(fields.count)
        precondition(back.count == fields.count && zip(back, fields).allSatisfy {
            $0.0 == $1.name && $0.1 == $1.value.replacingControlCharacters()
        }, "the reason read back differently: \(fields) \(Array(back))")
        let limits = RateLimitHeaders(head.fields, nowSeconds: now)
        if let pause = limits.pauseSeconds {
            precondition(pause > 0 && pause <= RateLimitHeaders.longestPauseSeconds, "pause \(pause)")
        }
        if let rate = limits.rate { precondition(rate > 0 && rate.isFinite, "rate \(rate)") }
    }

    /// An auth profile: read or refused with an error, and what it adds to a request is only well-formed
    /// header lines (a token name, a value without a line break or NUL) and absolute TLS paths.
    static func authProfile(_ bytes: [UInt8]) {
        guard let profile = try? Credentials.parse(bytes, path: "auth/profile") else { return }
        for (name, value) in profile.headers {
            precondition(!name.isEmpty && name.utf8.allSatisfy(HTTPSyntax.isTokenCharacter), "name \(Array(name.utf8))")
            precondition(
                !value.utf8.contains { $0 < 0x20 && $0 != 0x09 || $0 == 0x7F }, "\(name): \(Array(value.utf8))")
        }
        for path in [profile.tls.caFile, profile.tls.certificateFile, profile.tls.keyFile].compactMap({ $0 }) {
            precondition(path.hasPrefix("/") && !path.utf8.contains { $0 < 0x20 }, "TLS path \(Array(path.utf8))")
        }
    }
}
