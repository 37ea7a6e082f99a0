import Foundation
import SpoolTestSupport
import Testing
@testable import SpoolDocument

/// A write keeps the trace its producer ran in (W3C Trace Context) and each attempt is a span of its own:
/// the server sees the kept trace id with a new span id every time.
@Suite struct TraceContextTests {
    static let parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

    /// What the specification allows is kept as given; what it makes invalid is refused with the field named.
    @Test func onlyAValidTraceparentIsKept() throws {
        let trace = try TraceContext(traceparent: Self.parent, tracestate: "rojo=00f067aa0ba902b7")
        #expect(trace.traceID == "4bf92f3577b34da6a3ce929d0e0e4736" && trace.parentID == "00f067aa0ba902b7")
        #expect(trace.traceparent(span: "b7ad6b7169203331") == "00-4bf92f3577b34da6a3ce929d0e0e4736-b7ad6b7169203331-01")
        #expect(try TraceContext(traceparent: "cc-" + Self.parent.dropFirst(3) + "-what-comes-later", tracestate: nil)
            .flags == "01", "a later version's first four fields read as version 00's")
        for bad in ["", "junk", Self.parent.uppercased(), Self.parent + "-00", "ff" + Self.parent.dropFirst(2),
                    "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
                    "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01", "00-4bf9-00f067aa0ba902b7-01"] {
            #expect(throws: OperationError.self, "\(bad)") { try TraceContext(traceparent: bad, tracestate: nil) }
        }
        #expect(throws: OperationError.self) { try TraceContext(traceparent: Self.parent, tracestate: "a\u{1}") }
        let spans = (0..<100).map { _ in TraceContext.newSpanID() }
        #expect(Set(spans).count == 100 && spans.allSatisfy { $0.utf8.count == 16 && $0 != String(repeating: "0", count: 16) })
    }

    /// In a document: `traceparent` and `tracestate` are fields; as headers they are refused with the way out,
    /// and a `tracestate` alone belongs to no trace.
    @Test func aDocumentCarriesItsTraceInFields() throws {
        func operation(_ fields: [(String, JSON)]) throws(OperationError) -> SpoolDocument.Operation {
            try SpoolDocument.Operation(document: .object([("method", .string("PUT")), ("url", .string("http://a.example/x"))] + fields))
        }
        #expect(try operation([("traceparent", .string(Self.parent))]).trace?.traceID == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(try operation([]).trace == nil)
        #expect(throws: OperationError.self) { try operation([("tracestate", .string("a=b"))]) }
        #expect(throws: OperationError.self) { try operation([("traceparent", .string("00-x"))]) }
        do {
            _ = try operation([("headers", .object([("traceparent", .string(Self.parent))]))])
            Issue.record("a traceparent header is refused")
        } catch {
            #expect(error.description.contains("use the \"traceparent\" field"), "\(error)")
        }
    }

    /// nginx answers 502 three times: each `--once` run sends the write again, and nginx's log shows the
    /// trace id and `tracestate` the producer had, with a new span id each attempt; `-v` names trace and span.
    @Test(.enabled(if: Nginx.binary != nil, "needs nginx"))
    func theTraceReachesTheServerOnEveryAttemptWithANewSpan() throws {
        let spool = TemporarySpool()
        let nginx = try Nginx(tls: false, locations: "location / { return 502; }",
                              logFormat: "$request_method $uri $http_traceparent $http_tracestate $status")
        let base = "http://127.0.0.1:\(nginx.port)"
        let queued = try Command.run("spool-enqueue", ["--spool", spool.path, "PUT", base + "/notes/1", "-d", "x"],
                                     environment: ["TRACEPARENT": Self.parent, "TRACESTATE": "rojo=00f067aa0ba902b7"])
        #expect(queued.status == 0 && queued.stderr.isEmpty, "\(queued.stderr)")
        var verbose: [String] = []
        for _ in 0..<3 {
            let run = try spool.send(["-v"])
            verbose += run.stderr.split(separator: "\n").map(String.init).filter { $0.contains("sending ") }
            let flushed = try Command.run("spool-ctl", ["--spool", spool.path, "flush", "--origin", base])
            #expect(flushed.status == 0, "\(flushed.stdout)\(flushed.stderr)")
        }
        let log = nginx.accessLog.map(\.fields)
        #expect(log.count == 3 && log.allSatisfy { $0.count == 5 && $0[1] == "/notes/1" && $0[4] == "502" }, "\(log)")
        let parents = log.map { $0.count == 5 ? $0[2] : "" }
        let trace = try TraceContext(traceparent: Self.parent, tracestate: nil)
        #expect(parents.allSatisfy { $0.hasPrefix("00-\(trace.traceID)-") && $0.hasSuffix("-01") }, "\(parents)")
        let spans = parents.map { $0.split(separator: "-").dropFirst(2).first.map(String.init) ?? "" }
        #expect(Set(spans).count == 3 && !spans.contains(trace.parentID), "a new span each attempt: \(spans)")
        #expect(log.allSatisfy { $0.count == 5 && $0[3] == "rojo=00f067aa0ba902b7" }, "\(log)")
        #expect(verbose.count == 3 && zip(verbose, spans).allSatisfy { $0.contains("trace \(trace.traceID), span \($1)") },
                "\(verbose)")
    }

    /// spool-enqueue takes curl's `-H traceparent:` as the write's trace; a `TRACEPARENT` the specification
    /// makes invalid is left out and said, and the write is queued anyway.
    @Test func enqueueTakesTheHeaderAndWarnsOfABadEnvironment() throws {
        let spool = TemporarySpool()
        func document(_ id: String) -> String {
            spool.read("new", spool.names("new").first { $0.hasPrefix(id + ":") } ?? id)
        }
        let header = try spool.enqueue(["PUT", "http://127.0.0.1:9/a", "-H", "traceparent: \(Self.parent)"])
        #expect(document(header).contains("\"traceparent\":\"\(Self.parent)\""), "\(document(header))")
        #expect(!document(header).contains("\"headers\""), "the header became the field")
        let bad = try Command.run("spool-enqueue", ["--spool", spool.path, "PUT", "http://127.0.0.1:9/b"],
                                  environment: ["TRACEPARENT": "junk"])
        let id = bad.stdout.trimmingCharacters(in: .newlines)
        #expect(bad.status == 0 && bad.stderr.contains("TRACEPARENT left out"), "\(bad.stderr)")
        #expect(!document(id).isEmpty && !document(id).contains("traceparent"), "\(document(id))")
        // A bad TRACESTATE alone is left out; the trace is kept.
        let state = try Command.run("spool-enqueue", ["--spool", spool.path, "PUT", "http://127.0.0.1:9/c"],
                                    environment: ["TRACEPARENT": Self.parent, "TRACESTATE": "a\u{7f}"])
        let kept = state.stdout.trimmingCharacters(in: .newlines)
        #expect(state.status == 0 && state.stderr.contains("TRACESTATE left out"), "\(state.stderr)")
        #expect(document(kept).contains(Self.parent) && !document(kept).contains("tracestate"), "\(document(kept))")
    }
}
