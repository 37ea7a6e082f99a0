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

@Suite struct OutcomeTests {
    func classify(_ method: String, _ status: Int, _ headers: [String: String] = [:]) -> Outcome {
        Outcome.classify(
            method: method, result: .success(HTTPResponse(status: status, headers: headers, body: [])), nowSeconds: 1000
        )
    }

    @Test func statusTable() throws {
        #expect(classify("PUT", 201) == .done)
        #expect(classify("DELETE", 404) == .done)
        #expect(classify("DELETE", 410) == .done)
        if case .failed = classify("PUT", 404) {} else { Issue.record("404 to a PUT fails") }
        if case .conflict = classify("PUT", 412) {} else { Issue.record("412 is a conflict") }
        if case .conflict = classify("PUT", 409) {} else { Issue.record("409 is a conflict") }
        #expect(
            classify("PUT", 409, ["retry-after": "3"])
                == .retry(
                    token: "409", reason: "HTTP 409 with Retry-After (request with this key still in progress)",
                    retryAfter: 3, takesOriginDown: false, details: [Outcome.Field("status", "409")]))
        for status in [408, 425, 500, 502, 504] {
            if case .retry = classify("POST", status) {} else { Issue.record("\(status) is retried") }
        }
        // The origin's signal, not the operation's failure: given back as it was, and sent at the origin's rate.
        for status in [429, 503] {
            if case .pushedBack = classify("POST", status) {} else { Issue.record("\(status) is the origin's") }
            let document = try Operation(bytes: Array(#"{"method":"POST","url":"http://h/","max_attempts":1}"#.utf8))
            let now = OperationStateMachineTests.nowSeconds
            // No time left under the claim: the push-back is the attempt's last answer.
            var machine = OperationStateMachineTests.sending(
                document, entry: OperationStateMachineTests.entry(attempts: 0), holdUntil: now)
            let action = machine.receive(.answered(classify("POST", status), nowMicroseconds: now * 1_000_000,
                                                   stopping: false))
            #expect(action == .unclaim(reason: "HTTP \(status)"), "max_attempts 1 is not used up by a \(status)")
        }
        for status in [301, 302, 307, 308, 400, 401, 403, 422, 501] {
            if case .failed = classify("POST", status) {} else { Issue.record("\(status) fails") }
        }
    }

    @Test func transportFailures() {
        let lost = Outcome.classify(method: "PUT", result: .failure(.lost("Empty reply from server")), nowSeconds: 0)
        #expect(
            lost
                == .retry(
                    token: "lost", reason: "connection lost without an answer: Empty reply from server",
                    retryAfter: nil, takesOriginDown: false))
        let tls = Outcome.classify(
            method: "PUT", result: .failure(.tls("unable to get local issuer certificate")), nowSeconds: 0)
        #expect(
            tls
                == .retry(
                    token: "tls", reason: "TLS error: unable to get local issuer certificate", retryAfter: nil,
                    takesOriginDown: true))
        // An answer whose head is too large would be too large on every retry: filed, never re-sent forever.
        guard case .failed = Outcome.classify(method: "PUT", result: .failure(.tooLarge("head")), nowSeconds: 0) else {
            Issue.record("an answer too large is filed")
            return
        }
        let refused = Outcome.classify(method: "PUT", result: .failure(.refused), nowSeconds: 0)
        #expect(refused == .retry(token: "refused", reason: "connection refused", retryAfter: nil, takesOriginDown: true))
    }

    @Test func retryAfterForms() {
        #expect(RetryAfter.seconds("120", nowSeconds: 0) == 120)
        #expect(RetryAfter.seconds("Sun, 06 Nov 1994 08:49:37 GMT", nowSeconds: 784_111_770) == 7)
        #expect(RetryAfter.seconds("soon", nowSeconds: 0) == nil)
        #expect(RetryAfter.seconds("-5", nowSeconds: 0) == nil)
    }
}
