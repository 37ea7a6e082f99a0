import Foundation
import Glibc
import SpoolTestSupport
import Testing
@testable import SpoolSystem

/// A merged document is a file a sender can tell from the one it replaced by its status alone (FileIdentity):
/// its modification time comes after that file's, even where the file system's clock would give both one time.
@Suite struct FoldIdentityTests {
    /// The modification time of the one file in `spool`'s `new/`, in nanoseconds.
    static func modified(_ spool: TemporarySpool) throws -> Int64 {
        let names = spool.names("new")
        try #require(names.count == 1, "one waiting file: \(names)")
        var status = stat()
        #expect(lstat(spool.path + "/new/" + names[0], &status) == 0)
        return Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec)
    }

    @Test func aMergedDocumentIsLaterThanTheOneItReplaces() throws {
        let spool = TemporarySpool()
        let url = "http://127.0.0.1:9/items"
        let create = try Command.run("spool-enqueue", [
            "--spool", spool.path, "POST", url, "--creates", "--key", "item-1", "--json", #"{"n":1}"#,
        ])
        try #require(create.status == 0, "\(create.stderr)")
        // The waiting file's time set an hour ahead stands for a clock that has not moved between two writes:
        // a merge written at the same tick would otherwise carry the very same time.
        let name = spool.names("new")[0], ahead = Date().addingTimeInterval(3600)
        try FileManager.default.setAttributes([.modificationDate: ahead], ofItemAtPath: spool.path + "/new/" + name)
        let before = try Self.modified(spool)
        for n in 2...3 {
            let edit = try Command.run("spool-enqueue", [
                "--spool", spool.path, "PATCH", url + "/1", "--merge", "--key", "item-1", "--json", "{\"n\":\(n)}",
            ])
            try #require(edit.status == 0 && edit.stderr.contains("merged into"), "\(edit.stderr)")
        }
        let after = try Self.modified(spool)
        #expect(after > before, "the merged file's time must come after the replaced one's: \(before) then \(after)")
        #expect(after - before < 1_000_000, "a nanosecond later per merge, not the clock's time: \(after - before)")
        let document = try String(contentsOfFile: spool.path + "/new/" + spool.names("new")[0], encoding: .utf8)
        #expect(document.contains(#"\"n\":3"#), "both merges applied: \(document)")
    }
}
