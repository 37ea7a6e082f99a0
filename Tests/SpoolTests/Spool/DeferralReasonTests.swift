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

/// `new/.ID.why`: the last deferral's full reason, kept beside a waiting operation for `spool-ctl show`,
/// gone with the operation, and carried into its filed reason when it runs out of attempts or time.
@Suite struct DeferralReasonTests {
    @Test func aDeferralKeepsTheStatusAndBodyUntilDelivery() throws {
        let spool = TemporarySpool()
        let down = Locked(true)
        let server = try TestServer { _ in
            down.withLock { $0 } ? .respond(502, [:], "upstream maintenance until 14:00\n") : .respond(204, [:], "")
        }
        defer { server.stop() }
        let id = try spool.enqueue(["PUT", server.baseURL + "/a"])
        try spool.send()
        #expect(FileManager.default.fileExists(atPath: "\(spool.path)/new/.\(id).why"))
        let show = try Command.run("spool-ctl", ["--spool", spool.path, "show", id])
        #expect(show.status == 0)
        for line in [
            "why reason:       HTTP 502", "why status:       502",
            "why body:         upstream maintenance until 14:00\\n", "why attempts:     1"
        ] {
            #expect(
                show.lines.contains {
                    $0.hasPrefix(line.prefix { $0 != " " })
                        && $0.hasSuffix(
                            line.split(separator: " ", maxSplits: 2).last.map(String.init)!.trimmingCharacters(
                                in: .whitespaces))
                },
                "\(line) in \(show.stdout)")
        }
        let json = try Command.run("spool-ctl", ["--spool", spool.path, "show", id, "--json"])
        let why = try #require(
            (try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])?["why"]
                as? [String: String])
        #expect(why["status"] == "502" && why["last-error"] == "502" && why["at"] != nil, "\(why)")
        // Hidden: not an operation to list, count or admit.
        #expect(try Command.run("spool-ctl", ["--spool", spool.path, "list", "--json"]).lines.count == 1)

        down.withLock { $0 = false }
        #expect(try Command.run("spool-ctl", ["--spool", spool.path, "retry", "--now", id]).status == 0)
        try spool.send()
        #expect(server.requests.count == 2)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: spool.path + "/new").isEmpty,
            "delivered, and its kept reason with it")
    }

    @Test func outOfAttemptsOrTimeTheLastAnswerIsFiled() throws {
        let spool = TemporarySpool()
        let server = try TestServer { _ in .respond(502, ["ETag": "\"v3\""], "come back later") }
        defer { server.stop() }
        let limited = try spool.enqueue(["PUT", server.baseURL + "/a", "--max-attempts", "2"])
        let expiring = try spool.enqueue(["PUT", server.baseURL + "/b"])
        try spool.send()
        #expect(try Command.run("spool-ctl", ["--spool", spool.path, "retry", "--now"]).status == 0)
        try spool.send()
        // The second attempt of the first was its last; the other, deferred twice, is then past a 1-second lifetime.
        let deadline = Date().addingTimeInterval(10)
        while Timestamp.nowSeconds() - (spool.waiting().first { $0.id == expiring }?.state?.orderMicroseconds ?? 0)
            / 1_000_000 < 2, Date() < deadline
        {
            usleep(50_000)
        }
        try spool.send(["--lifetime", "1s"])
        let limitedWhy = spool.read("failed", limited + ".why")
        #expect(
            limitedWhy.contains("reason: gave up after 2 attempts (max_attempts); last error: HTTP 502"),
            "\(limitedWhy)")
        #expect(
            limitedWhy.contains("\nstatus: 502\n") && limitedWhy.contains("\netag: \"v3\"\n")
                && limitedWhy.contains("\nbody: come back later\n"), "\(limitedWhy)")
        let expiredWhy = spool.read("failed", expiring + ".why")
        #expect(expiredWhy.contains("the queue lifetime of 1 seconds"), "\(expiredWhy)")
        #expect(
            expiredWhy.contains("\nlast-reason: HTTP 502\n") && expiredWhy.contains("\nlast-status: 502\n")
                && expiredWhy.contains("\nlast-body: come back later\n"), "\(expiredWhy)")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: spool.path + "/new").isEmpty,
            "no kept reason outlives its operation")
    }
}
