import Foundation
import Glibc
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

@Suite struct IntakeTests {
    static let good = #"{"method":"PUT","url":"http://127.0.0.1:9/good","body":"ok"}"#
    static let old = Date(timeIntervalSinceNow: -60)

    /// Plants one entry of every bad kind beside good operations, and returns the reasons expected for each.
    static func plantBadEntries(in temporary: TemporarySpool) throws -> [String: String] {
        let outside = temporary.directory + "/outside.json"
        _ = FileManager.default.createFile(atPath: outside, contents: Data(good.utf8))
        temporary.drop("new", "not-json", "{\"method\": ", modified: old)
        temporary.drop("new", "not-an-operation", #"{"method":"PUT"}"#, modified: old)
        temporary.drop("new", "array", "[1,2]", modified: old)
        temporary.drop(
            "new", "too-large",
            #"{"method":"PUT","url":"http://h/","body":""# + String(repeating: "a", count: 1 << 20) + "\"}",
            modified: old)
        try FileManager.default.createSymbolicLink(
            atPath: temporary.path + "/new/symlink", withDestinationPath: outside)
        try FileManager.default.linkItem(atPath: outside, toPath: temporary.path + "/new/hardlink")
        #expect(mkfifo(temporary.path + "/new/fifo", 0o600) == 0)
        try FileManager.default.createDirectory(
            atPath: temporary.path + "/new/directory", withIntermediateDirectories: false)
        temporary.drop("new", "bad name", good, modified: old)
        return [
            "not-json": "not valid JSON", "not-an-operation": "missing required field \"url\"",
            "array": "must be a JSON object",
            "too-large": "more than the limit", "symlink": "symbolic link", "hardlink": "hard links", "fifo": "FIFO",
            "directory": "directory", "bad_name": "bad file name",
        ]
    }

    @Test func eachBadEntryIsFiledWithItsReasonAndGoodOnesAreAdmitted() throws {
        let temporary = TemporarySpool()
        let expected = try Self.plantBadEntries(in: temporary)
        temporary.drop("new", "good-1.json", Self.good, modified: Self.old)
        try Command.run("spool-enqueue", ["--spool", temporary.path, "PUT", "http://127.0.0.1:9/good2"])
        temporary.drop("new", "young-partial", "{\"meth")

        let scan = try Command.run("spool-testhelper", ["scan", temporary.path])
        #expect(scan.status == 0, "\(scan.stderr)")
        #expect(scan.lines.count == 2, "the good operations are listed: \(scan.stdout)")
        for (id, reason) in expected {
            #expect(temporary.names("failed").contains(id), "\(id) is filed in failed/")
            let why = temporary.read("failed", id + ".why")
            #expect(why.contains(reason), "\(id).why says \(reason): \(why)")
        }
        // Links are moved, never followed: the symlink is still a symlink, the outside file untouched.
        let attributes = try FileManager.default.attributesOfItem(atPath: temporary.path + "/failed/symlink")
        #expect(attributes[.type] as? FileAttributeType == .typeSymbolicLink)
        #expect(FileManager.default.contents(atPath: temporary.directory + "/outside.json") == Data(Self.good.utf8))
        #expect(temporary.read("failed", "bad_name.why").contains("original-name: bad name"))
        // The young unparsable file may be a producer still writing: left alone.
        let waiting = temporary.names("new")
        #expect(waiting.contains("young-partial"))
        #expect(waiting.contains { $0.hasPrefix("good-1.json:o=") })
        #expect(waiting.count == 3)
    }

    @Test func plainNamedDropIsOrderedByModificationTime() throws {
        let temporary = TemporarySpool()
        temporary.drop("new", "b-first", Self.good, modified: Date(timeIntervalSince1970: 1_700_000_000))
        temporary.drop("new", "a-second", Self.good, modified: Date(timeIntervalSince1970: 1_700_000_001))
        var entries: [QueueEntry] = []
        try temporary.open().scanNew { entries.append($0) }
        #expect(entries.sorted(by: QueueEntry.precedes).map(\.id) == ["b-first", "a-second"])
        #expect(entries.first { $0.id == "b-first" }?.state.orderMicroseconds == 1_700_000_000_000_000)
    }
}
