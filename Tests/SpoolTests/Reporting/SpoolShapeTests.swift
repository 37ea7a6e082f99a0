import Testing
@testable import SpoolSystem
@testable import SpoolNames
@testable import SpoolDocument
@testable import SpoolQueue
@testable import SpoolReporting

/// qshape's table for a spool: age buckets, rows by origin from names, the rows that are not origins, the text.
@Suite struct SpoolShapeTests {
    /// 2026-11-29T13:00:00Z.
    static let nowSeconds: Int64 = 1_795_957_200

    /// Drops an operation to `origin` aged `ageSeconds` under a name with retry state (and `h=` unless `oldStyle`).
    static func drop(_ spool: TemporarySpool, _ folder: String = "new", id: String, url: String, ageSeconds: Int64,
                     key: UInt64, origin: String? = nil, claim: Claim? = nil, document: String? = nil) {
        var state = RetryState(orderMicroseconds: (nowSeconds - ageSeconds) * 1_000_000 + 123, keyHash: key)
        if let origin { state.originHash = OrderingKey.originHash(origin) }
        let name = QueueName(id: id, state: state, claim: claim).fileName.string!
        spool.drop(folder, name, document ?? #"{"method":"PUT","url":"\#(url)"}"#)
    }

    @Test func theBucketsAreQshapes() {
        #expect(SpoolShape.bucketMinutes == [5, 10, 20, 40, 80, 160, 320, 640, 1280])
        for (column, minutes) in SpoolShape.bucketMinutes.enumerated() {
            #expect(SpoolShape.column(ageSeconds: minutes * 60) == column, "\(minutes)m is at most \(minutes)m old")
            #expect(SpoolShape.column(ageSeconds: minutes * 60 + 1) == column + 1, "just over \(minutes)m")
            #expect(SpoolShape.column(ageSeconds: minutes * 60 - 1) == column)
        }
        #expect(SpoolShape.column(ageSeconds: 0) == 0)
        #expect(SpoolShape.column(ageSeconds: Int64.max) == 9, "older than the last column")
        #expect(SpoolShape.column(ageSeconds: Int64.min) == 0, "a clock stepped far back")
    }

    @Test func rowsByOriginWithTheRowsThatAreNotOrigins() throws {
        let spool = TemporarySpool()
        defer { withExtendedLifetime(spool) {} }
        let a = "http://a.example", b = "https://b.example"
        Self.drop(spool, id: "a1", url: a + "/x", ageSeconds: 0, key: 1, origin: a)
        Self.drop(spool, id: "a2", url: a + "/x", ageSeconds: 301, key: 1, origin: a)
        Self.drop(spool, id: "a3", url: a + "/y", ageSeconds: 1280 * 60 + 1, key: 3, origin: a)
        // A name from before h=: grouped by its key, and its row named from its document.
        Self.drop(spool, id: "a4", url: a + "/z", ageSeconds: 40 * 60, key: 7)
        Self.drop(spool, id: "b1", url: b + "/q", ageSeconds: 600, key: 2, origin: b)
        Self.drop(spool, id: "b2", url: b + "/q", ageSeconds: 601, key: 2, origin: b)
        let claim = Claim(owner: ProcessIdentity(host: "h.example", pid: 42, startTicks: 9), since: Self.nowSeconds)
        Self.drop(spool, "cur", id: "b3", url: b + "/q", ageSeconds: 10, key: 2, origin: b, claim: claim)
        Self.drop(spool, id: "g1", url: "", ageSeconds: 5000, key: 9, origin: "http://gone.example",
                  document: "not JSON")
        spool.drop("new", "plain-drop", #"{"method":"PUT","url":"http://a.example/x"}"#)
        spool.drop("new", ".hidden", "ignored")
        Self.drop(spool, "failed", id: "f1", url: a + "/x", ageSeconds: 60, key: 1, origin: a)

        let shape = try SpoolShape(spool: spool.open(), nowSeconds: Self.nowSeconds)
        #expect(shape.rows == [
            a: [1, 1, 0, 1, 0, 0, 0, 0, 0, 1],
            b: [1, 1, 1, 0, 0, 0, 0, 0, 0, 0],
            SpoolShape.unadmitted: [1, 0, 0, 0, 0, 0, 0, 0, 0, 0],
            SpoolShape.unreadable: [0, 0, 0, 0, 0, 1, 0, 0, 0, 0],
        ])
        // Origins by count, largest first, then the rows that are not origins; columns right-aligned.
        #expect(shape.text == """
                                        T 5 10 20 40 80 160 320 640 1280 1280+
                                  TOTAL 9 3  2  1  1  0   1   0   0    0     1
                       http://a.example 4 1  1  0  1  0   0   0   0    0     1
                      https://b.example 3 1  1  1  0  0   0   0   0    0     0
            (dropped, not yet admitted) 1 1  0  0  0  0   0   0   0    0     0
                           (unreadable) 1 0  0  0  0  0   1   0   0    0     0

            """)

        let curOnly = try SpoolShape(spool: spool.open(), folders: [.cur], nowSeconds: Self.nowSeconds)
        #expect(curOnly.rows == [b: [1, 0, 0, 0, 0, 0, 0, 0, 0, 0]])
        let later = try SpoolShape(spool: spool.open(), folders: [.cur], nowSeconds: Self.nowSeconds + 3600)
        #expect(later.rows == [b: [0, 0, 0, 0, 1, 0, 0, 0, 0, 0]], "an hour later it is in the 80-minute column")
    }

    @Test func equalCountsAreOrderedByName() throws {
        let spool = TemporarySpool()
        defer { withExtendedLifetime(spool) {} }
        for (id, origin) in [("z1", "http://z.example"), ("m1", "http://m.example"), ("m2", "http://m.example"),
                             ("c1", "http://c.example")] {
            Self.drop(spool, id: id, url: origin + "/r", ageSeconds: 60, key: OrderingKey.hash(origin), origin: origin)
        }
        let lines = try SpoolShape(spool: spool.open(), nowSeconds: Self.nowSeconds).text.split(separator: "\n")
        #expect(lines.map { $0.split(separator: " ").first.map(String.init) ?? "" }
            == ["T", "TOTAL", "http://m.example", "http://c.example", "http://z.example"])
        #expect(Set(lines.map(\.count)).count == 1, "every line as wide as the heading")
    }

    @Test func anEmptyFolderHasTheHeadingAndAZeroTotal() throws {
        let spool = TemporarySpool()
        defer { withExtendedLifetime(spool) {} }
        let shape = try SpoolShape(spool: spool.open(), nowSeconds: Self.nowSeconds)
        #expect(shape.rows.isEmpty)
        #expect(shape.text == """
                  T 5 10 20 40 80 160 320 640 1280 1280+
            TOTAL 0 0  0  0  0  0   0   0   0    0     0

            """)
    }

    @Test func filedOperationsAreCountedOnceAndNotAsDrops() throws {
        // `spool-ctl shape failed` passes failed/, where operations are named by their id and have an ID.why.
        let spool = TemporarySpool()
        defer { withExtendedLifetime(spool) {} }
        spool.drop("failed", "op-1", #"{"method":"PUT","url":"http://a.example/x"}"#)
        spool.drop("failed", "op-1.why", "id: op-1\nfolder: failed\nreason: rejected: 400\n")
        let shape = try SpoolShape(spool: spool.open(), folders: [.failed], nowSeconds: Self.nowSeconds)
        #expect(shape.rows.values.map { $0.reduce(0, +) }.reduce(0, +) == 1, "\(shape.rows)")
        #expect(shape.rows[SpoolShape.unadmitted] == nil, "\(shape.rows)")
    }
}
