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

/// `spool-ctl hold` and `release` (postsuper -h and -H): a held operation stays in new/ with `s=held` in its
/// name, no run sends it or what follows it in its key, and release lets them go in their order.
@Suite struct HoldTests {
    @Test func aHeldOperationKeepsItsPlaceInItsKey() throws {
        let spool = TemporarySpool()
        let server = try TestServer { _ in .respond(204, [:], "") }
        defer { server.stop() }
        let a1 = try spool.enqueue(["PUT", server.baseURL + "/a", "--body", "1"])
        let a2 = try spool.enqueue(["PUT", server.baseURL + "/a", "--body", "2"])
        try spool.enqueue(["PUT", server.baseURL + "/a", "--body", "3"])
        try spool.enqueue(["PUT", server.baseURL + "/b", "--body", "b"])
        let hold = try Command.run("spool-ctl", ["--spool", spool.path, "hold", a2])
        #expect(hold.status == 0 && hold.stdout.hasPrefix("\(a2): held\n"), "\(hold.stdout)\(hold.stderr)")
        #expect(
            spool.names("new").filter { $0.hasSuffix(",s=held") }.map { String($0.prefix { $0 != ":" }) } == [a2],
            "ls shows the hold")
        let listed = try Command.run("spool-ctl", ["--spool", spool.path, "list", "--json"])
        #expect(
            listed.lines.filter { $0.contains(#""state":"held""#) }.count == 1
                && listed.lines.contains { $0.contains(a2) && $0.contains("held") })
        let stats = try Command.run("spool-ctl", ["--spool", spool.path, "stats"])
        #expect(stats.stdout.contains("(1 held)"), "\(stats.stdout)")

        // --flush ignores retry times, not holds; the third write waits behind the held second.
        try spool.send(["--flush"])
        #expect(server.requests.map(\.text).sorted() == ["1", "b"], "\(server.requests.map(\.text))")
        #expect(!spool.waiting().map(\.id).contains(a1) && spool.waiting().count == 2)
        try spool.send()
        #expect(server.requests.count == 2, "a second run sends nothing either")

        let release = try Command.run("spool-ctl", ["--spool", spool.path, "release", a2])
        #expect(
            release.status == 0 && release.stdout.hasPrefix("\(a2): released\n"), "\(release.stdout)\(release.stderr)")
        #expect(!spool.names("new").contains { $0.contains("s=held") })
        try spool.send()
        #expect(
            server.requests.map(\.text).suffix(2) == ["2", "3"], "released in its place: \(server.requests.map(\.text))"
        )
        #expect(spool.waiting().isEmpty)
    }

    @Test func holdByOriginOrKeyAndWhatIsRefused() throws {
        let spool = TemporarySpool()
        let server = try TestServer { _ in .respond(204, [:], "") }
        defer { server.stop() }
        let other = try TestServer { _ in .respond(204, [:], "") }
        defer { other.stop() }
        try spool.enqueue(["PUT", server.baseURL + "/x", "--key", "kx"])
        try spool.enqueue(["PUT", server.baseURL + "/y", "--key", "ky"])
        try spool.enqueue(["PUT", other.baseURL + "/z"])
        // A file dropped under a plain name, not yet admitted, is held under the state admission gives it.
        spool.drop("new", "dropped-one", #"{"method":"PUT","url":"\#(server.baseURL)/w"}"#)
        let hold = try Command.run("spool-ctl", ["--spool", spool.path, "hold", "--origin", server.baseURL])
        #expect(
            hold.status == 0
                && hold.stdout.hasSuffix("3 operation(s) held; 'spool-ctl release' sends them again in their place\n"),
            "\(hold.stdout)\(hold.stderr)")
        #expect(
            spool.names("new").contains { $0.hasPrefix("dropped-one:o=") && $0.hasSuffix(",s=held") },
            "\(spool.names("new"))")
        try spool.send()
        #expect(server.requests.isEmpty && other.requests.map(\.path) == ["/z"])

        let release = try Command.run("spool-ctl", ["--spool", spool.path, "release", "--key", "kx"])
        #expect(
            release.status == 0
                && release.stdout.hasSuffix(
                    "1 operation(s) released; they go at their next attempt time ('spool-ctl retry --now ID' for at "
                        + "once)\n"
                ), "\(release.stdout)")
        try spool.send()
        #expect(server.requests.map(\.path) == ["/x"])
        #expect(
            try Command.run("spool-ctl", ["--spool", spool.path, "release", "--origin", server.baseURL]).status == 0)
        try spool.send()
        #expect(server.requests.map(\.path).sorted() == ["/w", "/x", "/y"])

        // Being sent: refused as discard refuses it. Filed: not waiting. Unknown: not found. No selection: usage.
        let claimed = QueueName(
            id: "in-flight", state: RetryState(orderMicroseconds: 1, keyHash: 9),
            claim: Claim(owner: .current, since: Timestamp.nowSeconds()))
        spool.drop("cur", claimed.fileName.escaped, #"{"method":"PUT","url":"http://a.example/x"}"#)
        spool.drop("failed", "filed-one", #"{"method":"PUT","url":"http://a.example/x"}"#)
        for (arguments, status, message) in [
            (["hold", "in-flight"], 75, "is being sent"), (["hold", "filed-one"], 65, "not waiting in new/"),
            (["release", "nothing-here"], 66, "no operation nothing-here"),
            (["hold"], 64, "ID, --origin ORIGIN, --key KEY, --older-than DURATION or --last-error ERROR"),
            (["hold", "x", "--key", "k"], 64, "--key"),
            // Filters combine: the held writes of this key to this origin, none here.
            (["release", "--origin", server.baseURL, "--key", "k"], 0, "0 operation(s) released")
        ] {
            let result = try Command.run("spool-ctl", ["--spool", spool.path] + arguments)
            #expect(
                result.status == Int32(status) && (result.stderr + result.stdout).contains(message),
                "\(arguments): \(result.status) \(result.stderr)")
        }
    }

    /// A run's -v line does not say that nothing waits while a held write does.
    @Test func aRunSaysWhatIsHeld() throws {
        let spool = TemporarySpool()
        let server = try TestServer { _ in .respond(204, [:], "") }
        defer { server.stop() }
        let held = try spool.enqueue(["PUT", server.baseURL + "/held"])
        #expect(try Command.run("spool-ctl", ["--spool", spool.path, "hold", held]).status == 0)
        try spool.enqueue(["PUT", server.baseURL + "/sent"])
        let run = try spool.send(["-v"])
        #expect(run.stderr.contains("1 sent: 1 done, 0 deferred, 0 failed, 0 conflict; 1 key(s) held until "
            + "'spool-ctl release'; spool lock"), "\(run.stderr)")
        #expect(!run.stderr.contains("nothing else waits"), "\(run.stderr)")
    }
}
