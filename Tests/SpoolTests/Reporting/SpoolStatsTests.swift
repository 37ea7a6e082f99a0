import Foundation
import Testing
@testable import SpoolSystem
@testable import SpoolNames
@testable import SpoolDocument
@testable import SpoolQueue
@testable import SpoolReporting

/// `spool-ctl stats`: counts read from names and sizes, and the text, JSON and Prometheus renderings of them.
@Suite struct SpoolStatsTests {
    /// 2026-11-29T13:00:00Z.
    static let nowSeconds: Int64 = 1_795_957_200

    /// A name in `new/` or `cur/` enqueued `ageSeconds` ago.
    static func name(_ id: String, ageSeconds: Int64, due: Int64 = 0, held: Bool = false,
                     claim: Claim? = nil) -> String {
        var state = RetryState(orderMicroseconds: (nowSeconds - ageSeconds) * 1_000_000, keyHash: 1, dueSeconds: due)
        state.held = held
        return QueueName(id: id, state: state, claim: claim).fileName.string!
    }

    /// Statistics of an empty spool, to fill in by hand.
    static func blank() throws -> SpoolStats {
        let spool = TemporarySpool()
        return try withExtendedLifetime(spool) { try SpoolStats(spool: spool.open(), nowSeconds: nowSeconds) }
    }

    /// The values the rendering tests show: two origins, one paused until 13:10, one whose pause is over.
    static func filled() throws -> SpoolStats {
        var stats = try blank()
        stats.counts = [.new: 7, .cur: 1, .failed: 3, .conflict: 1]
        stats.deferred = 2
        stats.held = 1
        stats.oldestPendingAgeSeconds = 7200
        stats.nextDue = nowSeconds + 300
        stats.bytes = 4096
        var a = OriginRecord(origin: "http://a.example")
        (a.window, a.maximum, a.tooManyRequests, a.pushbacks, a.pauses) = (4, 8, 2, 3, 1)
        a.deliveries[.delivered] = 10
        a.deliveries[.failed] = 1
        a.deliveries[.deferred] = 2
        a.deliveries[.retried] = 3
        a.pausedUntil = nowSeconds + 600
        (a.learnedRate, a.learnedLimit, a.learnedAt, a.learnedCuts) = (9.5, 7.25, nowSeconds - 60, 3)
        var b = OriginRecord(origin: "https://b.example")
        b.pausedUntil = nowSeconds - 1
        // A rate learned more than a day ago is forgotten, and not shown.
        (b.learnedRate, b.learnedLimit, b.learnedAt, b.learnedCuts) = (40, 47, nowSeconds - 86401, 9)
        stats.origins = [a, b]
        return stats
    }

    @Test func readsCountsAgesAndBytesFromNamesAndSizes() throws {
        let spool = TemporarySpool()
        let now = Self.nowSeconds
        let claim = Claim(owner: ProcessIdentity(host: "h.example", pid: 42, startTicks: 9), since: now)
        let files: [(String, String, String)] = [
            ("new", Self.name("a", ageSeconds: 300), "{}"),
            ("new", Self.name("b", ageSeconds: 100, due: now + 600), "{\"b\":1}"),
            ("new", Self.name("c", ageSeconds: 100, due: now + 60), "{\"c\":22}"),
            ("new", Self.name("d", ageSeconds: 50, held: true), "{\"d\":333}"),
            ("new", Self.name("i", ageSeconds: 20, due: now - 5), "due already"),
            ("cur", Self.name("f", ageSeconds: 7200, claim: claim), "claimed"),
            ("failed", "g", "filed"), ("failed", "g.why", "reason: rejected\n"),
            ("conflict", "h", "conflicted"), ("tmp", "t1", "partial"),
        ]
        for (folder, name, contents) in files { spool.drop(folder, name, contents) }
        // A plain drop has no order in its name: its modification time stands in, and it is the oldest.
        spool.drop("new", "e", "dropped", modified: Date(timeIntervalSince1970: Double(now - 9000)))
        spool.drop("new", ".hidden", String(repeating: "x", count: 1000))
        var a = OriginRecord(origin: "https://z.example")
        a.window = 3
        let opened = try spool.open()
        OriginRecord.write([a, OriginRecord(origin: "http://a.example")], to: opened)

        let stats = try SpoolStats(spool: opened, nowSeconds: now)
        withExtendedLifetime(spool) {}
        #expect(stats.counts == [.new: 6, .cur: 1, .failed: 1, .conflict: 1, .tmp: 1], "the .why is not an operation")
        #expect(stats.deferred == 2 && stats.held == 1)
        #expect(stats.nextDue == now + 60)
        #expect(stats.oldestPendingAgeSeconds == 9000)
        #expect(stats.bytes == files.map(\.2.utf8.count).reduce(0, +) + "dropped".utf8.count, "hidden files are not")
        #expect(stats.origins.map(\.origin) == ["http://a.example", "https://z.example"])
        #expect(stats.origins.last?.window == 3)
        #expect(stats.nowSeconds == now)
    }

    @Test func anEmptySpoolReadsAsZeros() throws {
        let stats = try Self.blank()
        #expect(stats.counts == [.new: 0, .cur: 0, .failed: 0, .conflict: 0, .tmp: 0])
        #expect(stats.deferred == 0 && stats.held == 0 && stats.bytes == 0 && stats.origins.isEmpty)
        #expect(stats.oldestPendingAgeSeconds == nil && stats.nextDue == nil)
    }

    @Test func textForAPerson() throws {
        #expect(try Self.blank().text == """
            new       0
            cur       0
            failed    0
            conflict  0
            tmp       0
            oldest    -
            next due  -
            bytes     0

            """)
        #expect(try Self.filled().text == """
            new       7 (2 deferred, 1 held)
            cur       1
            failed    3
            conflict  1
            tmp       0
            oldest    2h pending
            next due  2026-11-29T13:05:00Z
            bytes     4096
            origin    http://a.example: window 4 of 8, rate 7.25/s learned (3 cuts), 2 answers 429, 3 pushbacks, 1 pauses; \
            10 delivered, 1 failed, 0 conflicted, 2 deferred, 3 retried, paused until 2026-11-29T13:10:00Z
            origin    https://b.example: window 1 of 1, 0 answers 429, 0 pushbacks, 0 pauses; \
            0 delivered, 0 failed, 0 conflicted, 0 deferred, 0 retried

            """)
        var heldOnly = try Self.blank()
        (heldOnly.counts[.new], heldOnly.held) = (3, 3)
        #expect(heldOnly.text.hasPrefix("new       3 (3 held)\ncur       0\n"))
    }

    @Test func jsonWithStableFieldNames() throws {
        #expect(try Self.blank().json.text == #"{"new":0,"cur":0,"failed":0,"conflict":0,"tmp":0,"deferred":0,"#
            + #""held":0,"oldest_pending_age_seconds":null,"next_due":null,"bytes":0,"origins":[]}"#)
        let counts = #""deliveries":{"delivered":10,"failed":1,"conflicted":0,"deferred":2,"retried":3}"#
        let zeros = #""deliveries":{"delivered":0,"failed":0,"conflicted":0,"deferred":0,"retried":0}"#
        #expect(try Self.filled().json.text == #"{"new":7,"cur":1,"failed":3,"conflict":1,"tmp":0,"deferred":2,"#
            + #""held":1,"oldest_pending_age_seconds":7200,"next_due":"2026-11-29T13:05:00Z","bytes":4096,"#
            + #""origins":[{"origin":"http://a.example","producer_uid":null,"window":4,"max_window":8,"learned_rate":7.25,"#
            + #""learned_cuts":3,"too_many_requests":2,"#
            + #""pushbacks":3,"pauses":1,\#(counts),"paused_until":"2026-11-29T13:10:00Z","paused_by":null,"#
            + #""unreachable_since":null,"state":"up","failed_probes":0},"#
            + #"{"origin":"https://b.example","producer_uid":null,"window":1,"max_window":1,"learned_rate":null,"learned_cuts":0,"#
            + #""too_many_requests":0,"#
            + #""pushbacks":0,"pauses":0,\#(zeros),"paused_until":null,"paused_by":null,"unreachable_since":null,"#
            + #""state":"up","failed_probes":0}]}"#)
    }

    @Test func prometheusOfAnEmptySpool() throws {
        let lines = try Self.blank().prometheus(spool: "/s").split(separator: "\n").map(String.init)
        #expect(lines == [
            "# HELP spool_operations Operations in the spool, by folder.", "# TYPE spool_operations gauge",
            #"spool_operations{spool="/s",folder="new"} 0"#, #"spool_operations{spool="/s",folder="cur"} 0"#,
            #"spool_operations{spool="/s",folder="failed"} 0"#, #"spool_operations{spool="/s",folder="conflict"} 0"#,
            #"spool_operations{spool="/s",folder="tmp"} 0"#,
            "# HELP spool_deferred_operations Operations in new/ waiting for their retry time.",
            "# TYPE spool_deferred_operations gauge", #"spool_deferred_operations{spool="/s"} 0"#,
            "# HELP spool_held_operations Operations in new/ on hold (spool-ctl hold).",
            "# TYPE spool_held_operations gauge", #"spool_held_operations{spool="/s"} 0"#,
            "# HELP spool_oldest_pending_age_seconds Age of the oldest operation not yet delivered.",
            "# TYPE spool_oldest_pending_age_seconds gauge", #"spool_oldest_pending_age_seconds{spool="/s"} 0"#,
            "# HELP spool_bytes Bytes of the files in the spool.", "# TYPE spool_bytes gauge",
            #"spool_bytes{spool="/s"} 0"#,
        ])
    }

    @Test func prometheusSamplesOfAFilledSpool() throws {
        let text = try Self.filled().prometheus(spool: #"/var/spool/a"b\c"#)
        #expect(text.hasSuffix("\n"))
        var samples: [String: String] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let space = try #require(line.lastIndex(of: " "))
            samples[String(line[..<space])] = String(line[line.index(after: space)...])
        }
        let spool = #"spool="/var/spool/a\"b\\c""#
        func value(_ name: String, _ labels: String = "") -> String? { samples["\(name){\(spool)\(labels)}"] }
        #expect(value("spool_operations", #",folder="new""#) == "7")
        #expect(value("spool_operations", #",folder="tmp""#) == "0")
        #expect(value("spool_deferred_operations") == "2" && value("spool_held_operations") == "1")
        #expect(value("spool_oldest_pending_age_seconds") == "7200")
        #expect(value("spool_next_due_timestamp_seconds") == String(Self.nowSeconds + 300))
        #expect(value("spool_bytes") == "4096")
        let a = #",origin="http://a.example""#, b = #",origin="https://b.example""#
        let expected: [(String, String, String)] = [
            ("spool_origin_window", "4", "1"), ("spool_origin_window_max", "8", "1"),
            ("spool_origin_learned_rate", "7.25", "0"),
            ("spool_origin_too_many_requests_total", "2", "0"), ("spool_origin_pushbacks_total", "3", "0"),
            ("spool_origin_pauses_total", "1", "0"), ("spool_origin_delivered_total", "10", "0"),
            ("spool_origin_failed_total", "1", "0"), ("spool_origin_conflicted_total", "0", "0"),
            ("spool_origin_deferred_total", "2", "0"), ("spool_origin_retried_total", "3", "0"),
            ("spool_origin_paused_until_timestamp_seconds", String(Self.nowSeconds + 600), "0"),
            ("spool_origin_up", "1", "1"),
        ]
        for (name, first, second) in expected {
            #expect(value(name, a) == first, "\(name)")
            #expect(value(name, b) == second, "\(name), a pause that is over reads 0")
        }
        #expect(samples.count == 5 + 5 + 2 * expected.count)
    }

    @Test func prometheusFamiliesAreDeclaredOnceBeforeTheirSamples() throws {
        for stats in [try Self.blank(), try Self.filled()] {
            var types: [String: String] = [:], helped: Set<String> = [], finished: Set<String> = [], current = ""
            for line in stats.prometheus(spool: "/s").split(separator: "\n").map(String.init) {
                let words = line.split(separator: " ").map(String.init)
                if words.first == "#" {
                    #expect(words.count >= 4 && ["HELP", "TYPE"].contains(words[1]), "\(line)")
                    if words[1] == "HELP" { #expect(helped.insert(words[2]).inserted, "one HELP: \(line)") }
                    if words[1] == "TYPE" {
                        #expect(types[words[2]] == nil && ["gauge", "counter"].contains(words[3]), "\(line)")
                        #expect(helped.contains(words[2]), "HELP before TYPE: \(line)")
                        types[words[2]] = words[3]
                    }
                    continue
                }
                let name = String(line.prefix { $0 != "{" })
                #expect(types[name] != nil, "declared before: \(line)")
                #expect(!finished.contains(name), "one group per family: \(line)")
                if name != current { finished.insert(current); current = name }
                // Counts are integers; a rate (requests per second) is the one gauge that may have decimals.
                if name == "spool_origin_learned_rate" {
                    #expect(Double(words.last ?? "").map { $0.isFinite } == true, "a number: \(line)")
                } else {
                    #expect(Int64(words.last ?? "") != nil, "an integer value: \(line)")
                }
                #expect(name.hasSuffix("_total") == (types[name] == "counter"), "counters end in _total: \(line)")
            }
        }
    }
}
