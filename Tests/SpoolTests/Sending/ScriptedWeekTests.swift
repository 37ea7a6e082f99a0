import Foundation
import SpoolTestSupport
import Testing
@testable import Spool
@testable import SpoolQueue

/// A week of cron runs in compressed time (a run a second, backoffs of one and two seconds) against origins
/// that follow a script, while a producer keeps enqueuing; and the same week under one watcher. Every write
/// is delivered once and in order per key, a recovered origin's backlog goes within a run or two of its
/// recovery, a limiter without headers is learned within 2x of its rate, and the runs speak only of change.
@Suite(.serialized, .enabled(if: Nginx.binary != nil, "needs nginx; .ci/run installs it"))
struct ScriptedWeekTests {
    /// What the week's record says of each origin, checked and printed as a table.
    func check(_ week: ScriptedWeek, lines: (ScriptedWeek.Origin) -> Int, mode: String) throws {
        let enqueued = week.enqueued.withLock { $0 }
        let records = OriginRecord.read(try week.spool.open())
        #expect(week.spool.names("failed").isEmpty && week.spool.names("conflict").isEmpty)
        print("scripted week, \(mode): episode | drained after recovery | 429 share | lines | learned rate")
        for origin in week.origins {
            let accepted = origin.accepted
            let paths = enqueued[origin.episode, default: []].map(\.path)
            #expect(accepted.count == Set(accepted).count, "\(origin.episode): a write accepted twice")
            #expect(Set(accepted) == Set(paths), "\(origin.episode): \(paths.count) enqueued, \(accepted.count) accepted")
            for key in 0..<3 {
                let sequence = accepted.filter { $0.contains("/k\(key)/") }.compactMap { Int($0.split(separator: "/").last!) }
                #expect(sequence == sequence.sorted(), "\(origin.episode) k\(key) out of order: \(sequence)")
            }
            let statuses = origin.statuses
            let share = Double(statuses.filter { $0 == 429 }.count) / Double(max(1, statuses.count))
            let said = lines(origin)
            let base = week.base(origin)
            let record = records.first { $0.origin == base }
            let drained = week.drainedAfterRecovery[origin.episode]
            #expect(said <= 2, "\(origin.episode): \(said) lines")
            // A sanitizer slows every process several times over: the timings are not the program's then.
            if Sanitizer.name == nil, [.outage, .maintenance, .pushBack].contains(origin.episode) {
                // The origin takes all at once after its recovery: one run could drain it; a backoff or a
                // Retry-After still running at that run's start leaves it to the next. A watcher's run holds an
                // unreachable origin back until it ends, here when the producer stops, and a key freed by the end
                // of a pause waits for the next round, which a busy machine (the suite's other tests) lengthens.
                let bound = ScriptedWeek.producing - ScriptedWeek.recovery + 3
                if mode == "cron" {
                    #expect((drained?.runs ?? 99) <= 2, "\(origin.episode): drained \(String(describing: drained))")
                } else {
                    #expect((drained?.seconds ?? 99) <= bound, "\(origin.episode): \(String(describing: drained))")
                }
            }
            if Sanitizer.name == nil, origin.episode == .limiter {
                let rate = record?.learnedRate ?? 0
                let truth = Double(ScriptedWeek.limiterRate)
                #expect(rate >= truth / 2 && rate <= truth * 2, "learned \(rate)/s against \(truth)/s")
            }
            print(
                "  \(origin.episode.rawValue) | "
                    + (drained.map { String(format: "%.1f s", $0.seconds) + (mode == "cron" ? ", \($0.runs) run(s)" : "") } ?? "-")
                    + " | " + String(format: "%.0f%% of %d", share * 100, statuses.count)
                    + " | \(said) | " + (record.map { OriginRecord.format(rate: $0.learnedRate) + "/s" } ?? "-"))
        }
    }

    @Test func aWeekUnderCron() throws {
        let week = try ScriptedWeek()
        defer { week.stop() }
        try week.underCron()
        #expect(week.drained, "not drained in a minute")
        try check(week, lines: { origin in
            week.runs.flatMap(\.lines).filter { $0.contains(week.base(origin)) }.count
        }, mode: "cron")
        let all = week.runs.flatMap(\.lines)
        print("scripted week, cron: \(week.runs.count) runs, \(all.count) lines: \(all)")
    }

    @Test func aWeekUnderOneWatcher() throws {
        let week = try ScriptedWeek()
        defer { week.stop() }
        let stderr = try week.underWatcher()
        #expect(week.drained, "not drained in a minute")
        let lines = stderr.split(separator: "\n")
        try check(week, lines: { origin in lines.filter { $0.contains(week.base(origin)) }.count }, mode: "watcher")
        print("scripted week, watcher: \(lines.count) lines: \(lines)")
    }
}
