import Foundation
import Synchronization
import SpoolTestSupport
import Testing
@testable import Spool
@testable import SpoolQueue
@testable import SpoolSystem
@testable import SpoolSending

/// What one run learns must help the next, under cron: a short push-back episode leaves a healthy server
/// served at its pace, not at a rate learned from instructions.
@Suite struct PushBackEpisodeTests {
    /// The origin of a test server answering 429 while `refusing`, with `Retry-After` when `instructs`, else
    /// as a rate limiter without headers: every third request accepted.
    final class Script: Sendable {
        let refusing = Atomic<Bool>(true)
        let count = Atomic<Int>(0)
        let instructs: Bool
        init(instructs: Bool) { self.instructs = instructs }
        func answer(_ request: TestServer.Request) -> TestServer.Reply {
            guard refusing.load(ordering: .relaxed) else { return .respond(204, [:], "") }
            if instructs { return .respond(429, ["Retry-After": "1"], "") }
            let index = count.add(1, ordering: .relaxed).newValue
            return index % 3 == 1 ? .respond(204, [:], "") : .respond(429, [:], "")
        }
    }

    /// Queues twenty PUTs on twenty keys.
    func queueTwenty(_ spool: TemporarySpool, _ server: TestServer) throws {
        for index in 0..<20 { try spool.enqueue(["PUT", server.baseURL + "/item/\(index)"]) }
    }

    /// Five cron runs against 429 with `Retry-After: 1`, each once the last pause is over, then two runs
    /// against a healthy server: an instruction is obeyed and teaches no rate, so all twenty go.
    @Test func anInstructedEpisodeLeavesNoLearnedRate() throws {
        let spool = TemporarySpool()
        let script = Script(instructs: true)
        let server = try TestServer { script.answer($0) }
        defer { server.stop() }
        try queueTwenty(spool, server)
        for run in 0..<5 {
            try spool.send()
            let record = OriginRecord.read(try spool.open()).first
            #expect(record?.learnedRate == 0, "run \(run) learned a rate from Retry-After: \(String(describing: record))")
            #expect(eventually(within: 5) { (record?.pausedUntil ?? 0) < Timestamp.nowSeconds() }, "the pause ends")
        }
        script.refusing.store(false, ordering: .relaxed)
        try spool.send()
        if !spool.operations("new").isEmpty { try spool.send() }
        #expect(spool.operations("new").isEmpty, "\(spool.operations("new").count) of twenty still wait")
        #expect(server.requests.filter { $0.method == "PUT" }.count >= 20)
    }

    /// A rate learned from a mix of accepted answers and plain 429s is forgotten by `flush --origin`, which says so: one run then sends all.
    @Test func flushForgetsALearnedRate() throws {
        let spool = TemporarySpool()
        let script = Script(instructs: false)
        let server = try TestServer { script.answer($0) }
        defer { server.stop() }
        try queueTwenty(spool, server)
        try spool.send(["--concurrency", "8"])
        let learned = OriginRecord.read(try spool.open()).first?.learnedRate ?? 0
        #expect(learned > 0, "accepted answers and plain 429s together teach a rate")
        script.refusing.store(false, ordering: .relaxed)
        let flushed = try Command.run("spool-ctl", ["--spool", spool.path, "flush", "--origin", server.baseURL, "--yes"])
        #expect(flushed.status == 0, "\(flushed.stderr)")
        #expect(flushed.stdout.contains("\(server.baseURL): learned rate of \(OriginRecord.format(rate: learned))/s "
            + "forgotten"), "\(flushed.stdout)")
        #expect(OriginRecord.read(try spool.open()).first?.learnedRate == 0)
        try spool.send()
        #expect(spool.operations("new").isEmpty, "\(spool.operations("new").count) of twenty still wait")
    }

    /// A run's start does not restart the curve: a run a second after a cut goes on from where the curve
    /// stands (above the cut, below the limit), one after the recovery starts at the limit, not under it.
    @Test func aRunContinuesTheCurveInWallClockTime() {
        var soon = OriginPacer(), later = OriginPacer()
        soon.restore(limit: 10, cutAt: 1000, cuts: 2, nowSeconds: 1001)
        later.restore(limit: 10, cutAt: 1000, cuts: 2, nowSeconds: 1000 + 3600)
        let cut = 10 * OriginPacer.cutFactor
        #expect((soon.rate ?? 0) > cut && (soon.rate ?? 0) < 10, "\(String(describing: soon.rate))")
        #expect(later.rate == 10, "\(String(describing: later.rate))")
        soon.grow(nowSeconds: 1002)
        #expect(soon.rate == 10, "the limit is reached at the end of the recovery, two seconds after the cut")
    }

    /// Restored in a later run, a learned rate keeps the time of its last cut: a day after that evidence it
    /// is forgotten, however many runs came between (each run's restore used to stamp it anew).
    @Test func aRestoredRateKeepsItsCutsTime() {
        var pacer = OriginPacer()
        pacer.restore(limit: 10, cutAt: 1000, cuts: 3, nowSeconds: 1000 + 60)
        #expect(pacer.learnedAt == 1000, "a run's start is no evidence")
        var window = OriginState(maximum: 4)
        var record = OriginRecord(origin: "http://h")
        (record.learnedLimit, record.learnedRate, record.learnedAt, record.learnedCuts) = (10, 8.5, 1000, 3)
        record.updated = 1000
        for run in 1...30 {
            window = OriginState(maximum: 4)
            window.restore(record, nowSeconds: Double(1000 + run * 3600))
            record = window.record("http://h", nowSeconds: Int64(1000 + run * 3600))
        }
        #expect(window.pacer.rate == nil && record.learnedRate == 0, "forgotten a day after the last cut")
    }
}
