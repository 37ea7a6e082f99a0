import Foundation
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

/// `spool-ctl shape`, qshape for a spool: origins by rows, ages by columns, from names and one read per key.
@Suite struct ShapeTests {
    @Test func originsByAgeAsQshapePrintsThem() throws {
        let spool = TemporarySpool()
        let nowSeconds = Timestamp.nowSeconds()
        // Two keys to api.example (3 and 1 operations), one to b.example, aged 1m, 15m, 2h and 2 days.
        let drops: [(String, UInt64, Int64, String)] = [
            ("a1", 1, 60, "http://api.example/x"), ("a2", 1, 900, "http://api.example/x"),
            ("a3", 1, 7200, "http://api.example/x"), ("a4", 2, 172_800, "http://api.example/y"),
            ("b1", 3, 900, "https://b.example/z")
        ]
        for (id, key, age, url) in drops {
            let name = QueueName(
                id: id, state: RetryState(orderMicroseconds: (nowSeconds - age) * 1_000_000, keyHash: key))
            spool.drop("new", name.fileName.escaped, #"{"method":"PUT","url":"\#(url)"}"#)
        }
        spool.drop("new", "plain-drop", #"{"method":"PUT","url":"http://api.example/x"}"#)
        let result = try Command.run("spool-ctl", ["--spool", spool.path, "shape"])
        #expect(result.status == 0, "\(result.stderr)")
        let rows = result.lines.map { $0.split(separator: " ").map(String.init) }
        #expect(
            rows.first == ["T", "5", "10", "20", "40", "80", "160", "320", "640", "1280", "1280+"], "\(result.stdout)")
        #expect(rows.count == 5, "\(result.stdout)")
        #expect(rows[1] == ["TOTAL", "6", "2", "0", "2", "0", "0", "1", "0", "0", "0", "1"], "\(result.stdout)")
        #expect(
            rows[2] == ["http://api.example", "4", "1", "0", "1", "0", "0", "1", "0", "0", "0", "1"], "\(result.stdout)"
        )
        #expect(
            rows[3] == ["https://b.example", "1", "0", "0", "1", "0", "0", "0", "0", "0", "0", "0"], "\(result.stdout)")
        #expect(
            rows[4].first == "(dropped,"
                && rows[4].suffix(11) == ["1", "1", "0", "0", "0", "0", "0", "0", "0", "0", "0"], "\(result.stdout)")
        // The columns line up under their headings.
        let heading = result.lines[0], total = result.lines[1]
        #expect(heading.count == total.count && heading.hasSuffix("1280+"))
        #expect(try Command.run("spool-ctl", ["--spool", spool.path, "shape", "tmp"]).status == 64)
        #expect(
            try Command.run("spool-ctl", ["--spool", spool.path, "shape", "failed"]).lines.count == 2,
            "an empty folder: the headings and TOTAL")
    }

    @Test func theOriginComesFromTheNameOnceAdmitted() throws {
        let spool = TemporarySpool()
        for (id, key, url) in [("m1", 1, "http://api.example/x"), ("m2", 2, "http://elsewhere.example/y")] {
            var state = RetryState(orderMicroseconds: Timestamp.nowMicroseconds(), keyHash: UInt64(key))
            state.originHash = OrderingKey.originHash("http://api.example")
            spool.drop("new", QueueName(id: id, state: state).fileName.escaped, #"{"method":"PUT","url":"\#(url)"}"#)
        }
        let enqueued = try Command.run("spool-enqueue", ["--spool", spool.path, "PUT", "http://api.example/z"])
        #expect(enqueued.status == 0, "\(enqueued.stderr)")
        #expect(spool.names("new").allSatisfy { $0.contains(",h=") }, "spool-enqueue writes h=")
        // Two keys whose names say one origin are counted under it from one read, whatever the other document says.
        let result = try Command.run("spool-ctl", ["--spool", spool.path, "shape"])
        // (Whichever document is read names the row: by key, the forged one would have a row of its own.)
        let row = result.lines.count == 3 ? result.lines[2].split(separator: " ").map(String.init) : []
        #expect(
            row.dropFirst().prefix(2) == ["3", "3"]
                && ["http://api.example", "http://elsewhere.example"].contains(row.first ?? ""), "\(result.stdout)")
    }

    @Test func columnsAreQshapesBuckets() {
        #expect(SpoolShape.column(ageSeconds: 0) == 0)
        #expect(SpoolShape.column(ageSeconds: 300) == 0)
        #expect(SpoolShape.column(ageSeconds: 301) == 1)
        #expect(SpoolShape.column(ageSeconds: 1280 * 60) == 8)
        #expect(SpoolShape.column(ageSeconds: 1280 * 60 + 1) == 9)
        #expect(SpoolShape.column(ageSeconds: -5) == 0, "a clock step back counts as new")
    }
}
