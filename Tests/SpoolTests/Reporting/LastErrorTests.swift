import Foundation
import Glibc
import SpoolTestSupport
import Testing
@testable import Spool
@testable import SpoolReporting

/// `--last-error`: after an outage an operator acts on what it filed (its 5xx, its refused connections) and
/// leaves the writes the server rejected for good (its 404s), in list, retry, discard, hold and release.
@Suite struct LastErrorTests {
    @Test func aStatusAClassOrATokenSelects() throws {
        let class5 = try #require(LastError("5XX"))
        #expect(class5.matches("503") && class5.matches("502") && !class5.matches("404"))
        #expect(!class5.matches("refused") && !class5.matches("5") && !class5.matches(nil))
        let timeout = try #require(LastError("timeout"))
        #expect(timeout.matches("timeout") && !timeout.matches("503"))
        #expect(try #require(LastError("404")).matches("404"))
        #expect(LastError("") == nil && LastError("a b") == nil && LastError("5xx;") == nil)
    }

    /// nginx answers 404 for one path and 502 for another; a closed port refuses. Each write has one attempt,
    /// so each is filed for its own last error, and each filter acts on exactly its own.
    @Test(.enabled(if: Nginx.binary != nil, "needs nginx"))
    func retryAndDiscardActOnTheLastErrorOnly() throws {
        let spool = TemporarySpool()
        let nginx = try Nginx(tls: false, locations: "location /gone/ { return 404; } location /busy/ { return 502; }")
        let base = "http://127.0.0.1:\(nginx.port)"
        let closed = "http://127.0.0.1:\(RefusedOriginTests.closedPort())"
        let gone = try (0..<2).map { try spool.enqueue(["--max-attempts", "1", "PUT", base + "/gone/\($0)"]) }
        let busy = try (0..<2).map { try spool.enqueue(["--max-attempts", "1", "PUT", base + "/busy/\($0)"]) }
        let refused = try spool.enqueue(["--max-attempts", "1", "PUT", closed + "/x"])
        for _ in 0..<6 where !spool.names("new").isEmpty { try spool.send(["--flush"]) }
        #expect(Set(spool.names("failed").filter { !$0.hasSuffix(".why") }) == Set(gone + busy + [refused]))

        let listed = try Command.run(
            "spool-ctl", ["--spool", spool.path, "list", "failed", "--last-error", "5xx", "--json"])
        let ids = listed.lines.compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["id"] as? String
        }
        #expect(listed.status == 0 && Set(ids) == Set(busy), "\(listed.stdout)\(listed.stderr)")
        #expect(listed.stdout.contains(#""last_error":"502""#), "\(listed.stdout)")

        let retried = try Command.run("spool-ctl", ["--spool", spool.path, "retry", "--last-error", "502"])
        #expect(retried.status == 0 && Set(spool.waiting().map(\.id)) == Set(busy), "\(retried.stdout)")
        #expect(retried.stdout.contains("\(busy[0]): back in new/"), "\(retried.stdout)")
        let discarded = try Command.run("spool-ctl", ["--spool", spool.path, "discard", "--last-error", "4xx", "--yes"])
        #expect(discarded.status == 0 && discarded.lines.count == 2, "\(discarded.stdout)")
        #expect(spool.names("failed").filter { !$0.hasSuffix(".why") } == [refused])
        let back = try Command.run("spool-ctl", ["--spool", spool.path, "retry", "--last-error", "refused"])
        #expect(back.status == 0 && Set(spool.waiting().map(\.id)) == Set(busy + [refused]), "\(back.stdout)")
    }

    /// hold and release take the same filters: the writes to a refusing origin are held by their last error
    /// and age, the others wait on.
    @Test func holdAndReleaseTakeTheFilters() throws {
        let spool = TemporarySpool()
        let closed = "http://127.0.0.1:\(RefusedOriginTests.closedPort())"
        let refused = try spool.enqueue(["PUT", closed + "/x"])
        try spool.send()
        let fresh = try spool.enqueue(["PUT", closed + "/y", "--key", "other"])
        #expect(spool.waiting().first { $0.id == refused }?.state?.lastError == "refused")

        let old = try Command.run("spool-ctl", ["--spool", spool.path, "hold", "--older-than", "1h"])
        #expect(old.status == 0 && old.stdout == "0 operation(s) held\n", "\(old.stdout)\(old.stderr)")
        let held = try Command.run("spool-ctl", ["--spool", spool.path, "hold", "--last-error", "refused"])
        #expect(held.status == 0 && held.stdout.hasPrefix("\(refused): held\n1 operation(s) held"), "\(held.stdout)")
        #expect(spool.waiting().filter { $0.state?.held == true }.map(\.id) == [refused])
        let released = try Command.run(
            "spool-ctl", ["--spool", spool.path, "release", "--origin", closed, "--last-error", "refused"])
        #expect(released.status == 0 && released.stdout.hasPrefix("\(refused): released\n"), "\(released.stdout)")
        #expect(spool.waiting().allSatisfy { $0.state?.held != true } && spool.waiting().count == 2, "\(fresh)")

        let both = try Command.run("spool-ctl", ["--spool", spool.path, "hold", refused, "--last-error", "refused"])
        #expect(both.status == 64 && both.stderr.contains("'ID' and '--last-error' cannot be used together"),
                "\(both.stderr)")
        let bad = try Command.run("spool-ctl", ["--spool", spool.path, "list", "--last-error", "5 xx"])
        #expect(bad.status == 64 && bad.stderr.contains("a class of them (5xx)"), "\(bad.stderr)")
    }
}
