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

/// The pure parts of handler jobs: the exit-status table, the document's fields, the output bound.
@Suite struct HandlerOutcomeTests {
    func result(_ ending: HandlerProcess.Ending, stderr: String = "") -> HandlerProcess.Result {
        var errors = OutputTail()
        errors.append(Array(stderr.utf8)[...])
        return HandlerProcess.Result(ending: ending, output: OutputTail(), errors: errors)
    }

    @Test func theExitStatusTable() {
        #expect(Outcome.classify(handler: "h", result(.exited(0)), timeout: 30) == .done)
        for (ending, token) in [
            (HandlerProcess.Ending.exited(75), "tempfail"), (.signaled(9), "signal"), (.timedOut, "timeout")
        ] {
            guard
                case let .retry(got, _, retryAfter, blocks, _) = Outcome.classify(
                    handler: "h", result(ending), timeout: 30)
            else {
                Issue.record("\(ending) is not retried")
                continue
            }
            #expect(got == token && retryAfter == nil && !blocks)
        }
        guard
            case let .conflict(fields) = Outcome.classify(
                handler: "h", result(.exited(3), stderr: "a\nb\nlast words\n"), timeout: 30)
        else {
            Issue.record("exit 3 is not a conflict")
            return
        }
        #expect(fields.contains(Outcome.Field("stderr", "a\nb\nlast words")))
        for status: Int32 in [1, 2, 4, 64, 65, 69, 74, 78, 126, 127, 255] {
            guard case let .failed(fields) = Outcome.classify(handler: "h", result(.exited(status)), timeout: 30) else {
                Issue.record("exit \(status) is not failed")
                continue
            }
            #expect(fields.contains(Outcome.Field("exit-status", "\(status)")))
        }
    }

    @Test func outputIsBoundedAndKeepsItsEnd() {
        var tail = OutputTail()
        for i in 0..<10_000 { tail.append(Array("line \(i) of a chatty handler\n".utf8)[...]) }
        #expect(tail.bytes.count <= 2 * OutputTail.limit && tail.total > 250_000)
        #expect(tail.lastLines(2) == "line 9998 of a chatty handler\nline 9999 of a chatty handler")
        #expect(tail.lastLines(5, maxBytes: 10).utf8.count <= 10)
        #expect(OutputTail().lastLines(5) == "")
    }

    @Test func handlerDocuments() throws {
        let job = try Operation(
            bytes: Array(
                #"{"handler": "mail", "args": ["--to", "ops@example.com", "it's"], "body": "hi", "key": "mail:ops"}"#
                    .utf8))
        #expect(job.handler == "mail" && job.arguments == ["--to", "ops@example.com", "it's"] && job.key == "mail:ops")
        #expect(job.origin == "handler:mail" && job.method == "RUN" && job.body == Array("hi".utf8))
        #expect(job.summary == #"handler mail --to ops@example.com 'it'\''s'"#)
        #expect(try Operation(bytes: Array(#"{"handler": "rsync"}"#.utf8)).key == "handler:rsync", "the default key")
        let refused = [
            #"{"handler": "mail", "url": "http://h/"}"#, #"{"handler": "mail", "method": "PUT"}"#,
            #"{"handler": "mail", "headers": {}}"#,
            #"{"handler": "mail", "if_match": "x"}"#, #"{"handler": "mail", "auth": "p"}"#, #"{"handler": "m/x"}"#,
            #"{"handler": "..."}"#, #"{"handler": 3}"#, #"{"handler": "mail", "args": "x"}"#,
            #"{"handler": "mail", "args": [1]}"#,
            #"{"handler": "mail", "args": ["a\u0000b"]}"#
        ]
        #expect(
            try Operation(bytes: Array(#"{"method": "PUT", "url": "http://h/", "args": [1]}"#.utf8)).arguments == [],
            "args beside a URL is the producer's own field, as before handlers")
        for document in refused {
            #expect(throws: OperationError.self, "\(document)") { try Operation(bytes: Array(document.utf8)) }
        }
    }
}
