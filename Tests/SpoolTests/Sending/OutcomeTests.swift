import Testing
@testable import Spool

@Suite struct OutcomeTests {
    func classify(_ method: String, _ status: Int, _ headers: [String: String] = [:]) -> Outcome {
        Outcome.classify(method: method, result: .success(HTTPResponse(status: status, headers: headers, body: [])), now: 1000)
    }

    @Test func statusTable() {
        #expect(classify("PUT", 201) == .done)
        #expect(classify("DELETE", 404) == .done)
        #expect(classify("DELETE", 410) == .done)
        if case .failed = classify("PUT", 404) {} else { Issue.record("404 to a PUT fails") }
        if case .conflict = classify("PUT", 412) {} else { Issue.record("412 is a conflict") }
        if case .conflict = classify("PUT", 409) {} else { Issue.record("409 is a conflict") }
        #expect(classify("PUT", 409, ["retry-after": "3"]) == .retry(token: "409", reason: "HTTP 409 with Retry-After (request with this key still in progress)", retryAfter: 3, blocksOrigin: false))
        for status in [408, 425, 429, 500, 502, 503, 504] {
            if case .retry = classify("POST", status) {} else { Issue.record("\(status) is retried") }
        }
        for status in [301, 302, 307, 308, 400, 401, 403, 422, 501] {
            if case .failed = classify("POST", status) {} else { Issue.record("\(status) fails") }
        }
    }

    @Test func transportFailures() {
        let lost = Outcome.classify(method: "PUT", result: .failure(.closedWithoutAnswer), now: 0)
        #expect(lost == .retry(token: "no-answer", reason: "connection closed without an answer", retryAfter: nil, blocksOrigin: false))
        let refused = Outcome.classify(method: "PUT", result: .failure(.refused), now: 0)
        #expect(refused == .retry(token: "refused", reason: "connection refused", retryAfter: nil, blocksOrigin: true))
    }

    @Test func retryAfterForms() {
        #expect(RetryAfter.seconds("120", now: 0) == 120)
        #expect(RetryAfter.seconds("Sun, 06 Nov 1994 08:49:37 GMT", now: 784_111_770) == 7)
        #expect(RetryAfter.seconds("soon", now: 0) == nil)
        #expect(RetryAfter.seconds("-5", now: 0) == nil)
    }
}
