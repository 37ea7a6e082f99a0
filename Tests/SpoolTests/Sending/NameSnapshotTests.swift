import Foundation
import SpoolTestSupport
import Testing
@testable import Spool
@testable import SpoolSystem
@testable import SpoolDocument
@testable import SpoolNames
@testable import SpoolQueue
@testable import SpoolSending

/// A round lists `new/` once: its second pass takes the names from its first while `new/` is short, and lists
/// again only past the snapshot's limit or after names were taken in between.
@Suite struct NameSnapshotTests {
    @Test func itKeepsNamesInTheirOrderUpToItsLimit() {
        var snapshot = NameSnapshot(limit: 3)
        for name in ["a:o=1", "bb", "ccc"] {
            #expect(Array(name.utf8).withUnsafeBufferPointer { snapshot.add($0) })
        }
        #expect(!Array("dddd".utf8).withUnsafeBufferPointer { snapshot.add($0) }, "the fourth is past the limit")
        var seen: [String] = []
        snapshot.forEach { seen.append(String(decoding: $0, as: UTF8.self)) }
        #expect(seen == ["a:o=1", "bb", "ccc"])
        #expect(snapshot.count == 3)
    }

    /// One round over `spool` by a builder whose snapshot keeps at most `limit` names; `between` runs after the
    /// first pass, before the second.
    func round(_ spool: Spool, limit: Int, between: () throws -> Void = {}) throws -> (kept: Int?, lanes: [[String]])
    {
        var builder = PlanBuilder(nowSeconds: Timestamp.nowSeconds(), parked: [], options: WorkerOptions())
        builder.snapshot = NameSnapshot(limit: limit)
        _ = try builder.listWaiting(spool)
        let kept = builder.snapshot?.count
        try between()
        try builder.listHeld(spool)
        _ = try builder.collect(builder.dueKeys(), spool)
        return (kept, builder.finish().lanes.map { $0.map(\.id) })
    }

    func put(_ spool: Spool, item: Int) throws -> String { try spool.enqueuePut("http://127.0.0.1:9/item/\(item)") }

    @Test func aRoundFromTheSnapshotIsTheRoundFromASecondListing() throws {
        let temporary = TemporarySpool()
        let spool = try temporary.open()
        for i in 0..<30 { _ = try put(spool, item: i % 3) }
        let fromSnapshot = try round(spool, limit: 100)
        let listedAgain = try round(spool, limit: 29)
        #expect(fromSnapshot.kept == 30, "every name kept")
        #expect(listedAgain.kept == nil, "one name too many: the second pass lists new/ again")
        #expect(fromSnapshot.lanes.count == 3 && fromSnapshot.lanes.allSatisfy { $0.count == 10 })
        #expect(fromSnapshot.lanes == listedAgain.lanes, "the same lanes, in the same order")
    }

    /// The second pass really reads the snapshot: a name dropped between the passes is not in this round when
    /// the snapshot was kept (it waits for the next), and is when `new/` is listed again.
    @Test func aNameDroppedBetweenThePassesWaitsForTheNextRound() throws {
        let temporary = TemporarySpool()
        let spool = try temporary.open()
        for i in 0..<6 { _ = try put(spool, item: i % 2) }
        var late = ""
        let fromSnapshot = try round(spool, limit: 100) { late = try put(spool, item: 0) }
        #expect(fromSnapshot.kept == 6)
        #expect(fromSnapshot.lanes.map(\.count).sorted() == [3, 3], "\(fromSnapshot.lanes)")
        #expect(!fromSnapshot.lanes.joined().contains(late))
        let listedAgain = try round(spool, limit: 3) { _ = try put(spool, item: 1) }
        #expect(listedAgain.kept == nil)
        #expect(listedAgain.lanes.joined().contains(late), "the next round, or a second listing, sends it")
        #expect(listedAgain.lanes.map(\.count).sorted() == [4, 4], "\(listedAgain.lanes)")
    }

    /// `spool-send --once` under strace: the sender lists `new/` once for its round and once more for the look
    /// that finds nothing left (a listing ends with a getdents64 that returns 0).
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/strace"), "needs strace; .ci/run installs it"))
    func theSenderListsNewOnceARound() throws {
        let spool = TemporarySpool()
        let server = try TestServer { _ in .respond(204, [:], "") }
        defer { server.stop() }
        for index in 0..<40 { try spool.enqueue(["PUT", server.baseURL + "/item/\(index % 8)", "--body", "b"]) }
        let trace = spool.directory + "/trace"
        let traced = try Command.run(
            "/usr/bin/strace",
            ["-f", "-qq", "-y", "-e", "trace=getdents64,execve", "-o", trace, Command.path("spool-send"), "--spool",
             spool.path, "--once"], environment: Sanitizer.withoutLeakCheck)
        #expect(traced.status == 0, "\(traced.stderr)")
        #expect(server.requests.count == 40)
        let calls = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
        guard let exec = calls.firstIndex(where: { $0.contains("execve(") && $0.contains("spool-send-http") }) else {
            Issue.record("the sender was not started: \(calls.prefix(5))")
            return
        }
        // A listing ends with a getdents64 that returns 0. With -f a call another thread's call interrupts is
        // printed in two lines, the second ("resumed") without the folder: it is matched to its thread's first.
        func listings(_ lines: ArraySlice<Substring>) -> Int {
            var unfinished = Set<Substring>(), count = 0
            for line in lines {
                let thread = line.prefix { $0 != " " }
                if line.contains("getdents64(") && line.contains("/new>") {
                    if line.hasSuffix("<unfinished ...>") { unfinished.insert(thread) }
                    if line.hasSuffix(" = 0") { count += 1 }
                } else if line.contains("<... getdents64 resumed>"), unfinished.remove(thread) != nil,
                          line.hasSuffix(" = 0") {
                    count += 1
                }
            }
            return count
        }
        #expect(listings(calls[..<exec]) == 1, "the front lists new/ once")
        #expect(listings(calls[exec...]) == 2, "\(calls[exec...].filter { $0.contains("/new>") })")
    }
}
