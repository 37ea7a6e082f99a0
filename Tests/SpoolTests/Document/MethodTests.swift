import Foundation
import SpoolTestSupport
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

/// Methods are case-sensitive and spool queues writes: `put` and a bare GET are refused with a hint.
@Suite struct MethodTests {
    static func reason(_ document: String) -> String? {
        do { _ = try Operation(bytes: Array(document.utf8)); return nil } catch { return error.description }
    }

    @Test func lowerCaseStandardMethodsAreRefusedWithTheirSpelling() {
        for method in ["put", "Post", "patch", "delete", "get"] {
            let reason = Self.reason(#"{"method":"\#(method)","url":"http://h/x"}"#)
            #expect(
                reason?.contains("is not \(method.uppercased()): methods are case-sensitive") == true,
                "\(method): \(reason ?? "accepted")")
        }
        #expect(Self.reason(#"{"method":"PROPPATCH","url":"http://h/x"}"#) == nil, "an extension method is a method")
        #expect(
            Self.reason(#"{"method":"purge","url":"http://h/x"}"#) == nil,
            "a lower-case extension method is its owner's business")
    }

    @Test func readingMethodsNeedAllowGet() {
        for method in ["GET", "HEAD", "OPTIONS"] {
            #expect(
                Self.reason(#"{"method":"\#(method)","url":"http://h/x"}"#)?.contains("allow_get") == true, "\(method)")
            #expect(Self.reason(#"{"method":"\#(method)","url":"http://h/x","allow_get":true}"#) == nil, "\(method)")
        }
        #expect(
            Self.reason(#"{"method":"GET","url":"http://h/x","allow_get":"yes"}"#)?.contains(
                "\"allow_get\" must be true or false") == true)
        for method in ["CONNECT", "TRACE"] {
            #expect(
                Self.reason(#"{"method":"\#(method)","url":"http://h/x","allow_get":true}"#)?.contains(
                    "cannot be queued") == true, "\(method)")
        }
    }

    @Test func spoolEnqueueRefusesWithExit65AndSendsAHeartbeatWhenAsked() throws {
        let spool = TemporarySpool()
        let lower = try Command.run("spool-enqueue", ["--spool", spool.path, "put", "http://127.0.0.1:9/x"])
        #expect(lower.status == 65 && lower.stderr.contains("write PUT"), "\(lower.stderr)")
        let get = try Command.run("spool-enqueue", ["--spool", spool.path, "GET", "http://127.0.0.1:9/ping"])
        #expect(get.status == 65 && get.stderr.contains("--allow-get"), "\(get.stderr)")
        #expect(spool.names("new").isEmpty)
        let server = try TestServer { _ in .respond(200, [:], "pong") }
        defer { server.stop() }
        try spool.enqueue(["GET", server.baseURL + "/ping", "--allow-get"])
        try spool.send()
        #expect(server.requests.map(\.method) == ["GET"])
        #expect(spool.names("new").isEmpty)
    }
}
