import SpoolDocument
import SpoolTransport

extension HTTPRequest {
    /// The request for one attempt of `operation`: its method, URL, headers and body, plus `Idempotency-Key`
    /// (the document's, or one derived from the operation so that it is the same on every attempt), `If-Match`,
    /// a `Content-Type` for JSON bodies, our `User-Agent` unless the document sets or removes one, and the credential
    /// headers last so that a document cannot shadow them. A write with a trace carries `traceparent` with
    /// `spanID`, this attempt's own id, and its `tracestate`.
    package init(
        operation: Operation, id: String, orderMicroseconds: Int64, userAgent: String,
        profile: Credentials.Profile = .init(), spanID: String? = nil
    ) {
        let credentials = profile.headers
        var headers = operation.headers
        headers.reserveCapacity(headers.count + 4 + credentials.count)
        func has(_ name: StaticString) -> Bool {
            headers.contains { HTTPSyntax.equalsIgnoringCase($0.name, name) }
        }
        if !credentials.isEmpty {
            let credentialNames = Set(credentials.map { $0.name.lowercased() })
            headers.removeAll { credentialNames.contains($0.name.lowercased()) }
        }
        func removed(_ name: StaticString) -> Bool {
            !operation.removedHeaders.isEmpty
                && operation.removedHeaders.contains { HTTPSyntax.equalsIgnoringCase($0, name) }
        }
        if !has("user-agent"), !removed("user-agent") { headers.append(("User-Agent", userAgent)) }
        if operation.bodyIsJSON, !has("content-type"), !removed("content-type") {
            headers.append(("Content-Type", "application/json"))
        }
        headers.append(
            (
                "Idempotency-Key",
                operation.idempotencyKey
                    ?? IdempotencyKey.derived(
                        id: id, orderMicroseconds: orderMicroseconds, method: operation.method, url: operation.url,
                        body: operation.body)
            ))
        if let tag = operation.ifMatch { headers.append(("If-Match", tag)) }
        if let trace = operation.trace { headers += trace.headers(spanID: spanID) }
        headers += credentials
        self.init(
            method: operation.method, url: operation.url, headers: headers, body: operation.body,
            origin: operation.origin, tls: profile.tls)
    }
}
