import Foundation
import Synchronization
import SpoolTestSupport
import Testing
@testable import Spool
@testable import SpoolQueue
@testable import SpoolSystem
@testable import SpoolSending
@testable import SpoolDocument
@testable import SpoolControl

/// An origin that accepts nothing is down, not slow: it teaches no rate, is probed again on its own backoff
/// (the cron runs between send nothing), and its recovery is noticed on its first accepted answer, after
/// which the backlog goes at full speed.
@Suite struct UnavailableOriginTests {
    /// The rules, without I/O: a push-back while nothing was accepted lately says unavailable; one soon after
    /// accepted answers cuts the rate; an accepted answer ends the down state and its backoff.
    @Test func onlyAMixTeachesARate() {
        var window = OriginState(maximum: 4)
        guard case let .go(first) = window.admit(nowSeconds: 100) else { Issue.record("a first request goes"); return }
        _ = window.finish(ticket: first, .pushedBack)
        #expect(window.pace(status: 503, ticket: first, nowSeconds: 100.1) == .unavailable)
        #expect(window.pacer.rate == nil, "the first answer of a run teaches no rate")
        let until = window.down(nowSeconds: 100.1, cause: "unavailable", backoff: Backoff(minimum: 10), random: 1)
        #expect(until == 110.1 && window.failedProbes == 1 && window.unreachableSince == 100)
        #expect(window.admit(nowSeconds: 105) == .paused(until: 110.1))
        guard case let .go(probe) = window.admit(nowSeconds: 111) else { Issue.record("the probe goes"); return }
        _ = window.finish(ticket: probe, .answered)
        #expect(window.pace(status: 204, ticket: probe, nowSeconds: 111.1) == .nothing)
        window.up()
        #expect(window.failedProbes == 0 && window.unreachableSince == 0)
        guard case let .go(next) = window.admit(nowSeconds: 111.2) else { Issue.record("the next goes"); return }
        #expect(window.pace(status: 429, ticket: next, nowSeconds: 111.3) == .cut, "a mix: a rate is learned")
        #expect(window.pacer.rate != nil)
    }

    /// Forty writes to an origin answering plain 503: the first run finds it unavailable and says so once;
    /// runs within its backoff send nothing and say nothing; once it recovers, the first run after the
    /// backoff delivers all forty and says it is back.
    @Test func aPlain503OriginIsProbedOnABackoffAndRecoversAtOnce() throws {
        let spool = TemporarySpool()
        let up = Atomic<Bool>(false)
        let server = try TestServer { _ in up.load(ordering: .relaxed) ? .respond(204, [:], "") : .respond(503, [:], "") }
        defer { server.stop() }
        for index in 0..<40 { try spool.enqueue(["PUT", server.baseURL + "/item/\(index)"]) }
        // A first backoff of two to four seconds: the next run, at once, falls within it.
        let cron = ["--min-backoff", "4", "--max-backoff", "8", "--concurrency", "8"]
        let first = try spool.send(cron)
        let origin = try Operation.origin(of: server.baseURL)
        #expect(first.stderr.contains("\(origin): unavailable: it accepted nothing"), "\(first.stderr)")
        #expect(first.stderr.split(separator: "\n").count == 1, "\(first.stderr)")
        let record = try #require(OriginRecord.read(try spool.open()).first)
        #expect(record.pausedBy == "unavailable" && record.learnedRate == 0 && record.failedProbes == 1, "\(record.line)")
        let probes = server.requests.count
        #expect((1...8).contains(probes), "one probe, or the first window: \(probes)")
        let held = try spool.send(cron)
        #expect(held.stderr.isEmpty && server.requests.count == probes, "held by its backoff: \(held.stderr)")
        let list = try Command.run("spool-ctl", ["--spool", spool.path, "list", "new"])
        #expect(list.stdout.contains("waits for its origin, unavailable since "), "\(list.stdout)")
        let stats = try Command.run("spool-ctl", ["--spool", spool.path, "stats"])
        #expect(stats.stdout.contains(", unavailable since ") && stats.stdout.contains(" (1 failed probes)"),
                "\(stats.stdout)")
        let json = try Command.run("spool-ctl", ["--spool", spool.path, "stats", "--json"])
        #expect(json.stdout.contains(#""state":"unavailable","failed_probes":1"#), "\(json.stdout)")
        let prometheus = try Command.run("spool-ctl", ["--spool", spool.path, "stats", "--prometheus"])
        #expect(prometheus.stdout.contains("spool_origin_up{spool=") && prometheus.stdout.contains("} 0\n"),
                "\(prometheus.stdout)")
        up.store(true, ordering: .relaxed)
        #expect(eventually(within: 10) {
            (OriginRecord.read(try! spool.open()).first?.pausedUntil ?? 0) < Timestamp.nowSeconds()
        }, "its backoff ends")
        let back = try spool.send(cron)
        #expect(back.stderr.contains("\(origin): reachable again, after "), "\(back.stderr)")
        #expect(back.stderr.hasSuffix(" unavailable\n"), "\(back.stderr)")
        #expect(spool.operations("new").isEmpty, "\(spool.operations("new").count) of forty still wait")
        let after = try #require(OriginRecord.read(try spool.open()).first)
        #expect(after.learnedRate == 0 && after.failedProbes == 0 && after.unreachableSince == 0, "\(after.line)")
        let upJSON = try Command.run("spool-ctl", ["--spool", spool.path, "stats", "--json"])
        #expect(upJSON.stdout.contains(#""state":"up","failed_probes":0"#), "\(upJSON.stdout)")
    }

    /// What a waiting write says it waits for, for each thing that holds its origin back.
    @Test func everyCauseOfWaitingIsSaid() {
        var record = OriginRecord(origin: "https://api.example.com")
        let now: Int64 = 1_800_000_000
        let until = Timestamp.formatRFC3339(now + 60), since = Timestamp.formatRFC3339(now - 600)
        func why(_ pausedBy: String, paused: Bool = true, down: Bool = false) -> String? {
            (record.pausedBy, record.pausedUntil, record.unreachableSince) =
                (pausedBy, paused ? now + 60 : 0, down ? now - 600 : 0)
            record.learnedRate = 0.05
            return ControlSession.originWait(record, nowSeconds: now)?.why
        }
        #expect(why("retry-after") == "its origin's pause until \(until), asked by the server's Retry-After")
        #expect(why("quota") == "its origin's pause until \(until), asked by a used-up quota")
        #expect(why("rate") == "its origin's pace of 0.05/s, learned by spool, until \(until)")
        #expect(why("unreachable", down: true) == "its origin, unreachable since \(since); probed again at \(until)")
        #expect(why("unavailable", down: true) == "its origin, unavailable since \(since); probed again at \(until)")
        #expect(why("unavailable", paused: false, down: true)
            == "its origin, unavailable since \(since); probed at the next run")
        #expect(why("", paused: false) == nil, "an origin that holds nothing back says nothing")
    }
}

/// Every waiting write says the one thing it waits for, in `list`, `--json` and `show`: the write ahead of it
/// in its key, a dependency still queued, a hold.
@Suite struct WaitReasonTests {
    @Test func aWriteSaysWhatItWaitsFor() throws {
        let spool = TemporarySpool()
        let base = "http://127.0.0.1:\(RefusedOriginTests.closedPort())"
        let head = try spool.enqueue(["PUT", base + "/a", "--key", "k"])
        let behind = try spool.enqueue(["PUT", base + "/b", "--key", "k"])
        let dependant = try spool.enqueue(["PUT", base + "/c", "--key", "other", "--depends-on", head])
        let held = try spool.enqueue(["PUT", base + "/d", "--key", "held"])
        #expect(try Command.run("spool-ctl", ["--spool", spool.path, "hold", held]).status == 0)
        let list = try Command.run("spool-ctl", ["--spool", spool.path, "list", "new"])
        func reason(_ id: String) -> String { list.lines.first { $0.hasPrefix(id) } ?? "" }
        #expect(reason(behind).hasSuffix("waits for the write ahead of it in its key, \(head)"), "\(list.stdout)")
        #expect(reason(dependant).hasSuffix("waits for its dependency \(head), still queued"), "\(list.stdout)")
        #expect(reason(held).hasSuffix("waits for 'spool-ctl release \(held)' (held)"), "\(list.stdout)")
        #expect(reason(head).hasSuffix(" -"), "the head waits for nothing: \(list.stdout)")
        let show = try Command.run("spool-ctl", ["--spool", spool.path, "show", behind])
        #expect(show.lines.contains { $0.hasPrefix("waits for:") && $0.hasSuffix("its key, \(head)") }, "\(show.stdout)")
        let json = try Command.run("spool-ctl", ["--spool", spool.path, "list", "new", "--json"])
        #expect(json.stdout.contains(#""waits_for":"its dependency \#(head), still queued""#), "\(json.stdout)")
    }
}
