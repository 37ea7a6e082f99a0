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

/// What the first enqueue into a new spool must make durable, and free-space checks that file systems
/// without statfs must not break.
@Suite struct SpoolCreationTests {
    static let strace: String? = ["/usr/bin/strace", "/bin/strace"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    @Test(
        .enabled(
            if: SpoolCreationTests.strace != nil,
            "strace is needed to watch fsync (apt-get install strace; .ci/run does)"))
    func firstEnqueueSyncsTheNewFoldersAndTheirParents() throws {
        let temporary = TemporarySpool()
        let spool = temporary.directory + "/fresh"
        let trace = temporary.directory + "/trace"
        let result = try Command.run(
            SpoolCreationTests.strace!,
            [
                "-f", "-y", "-e", "trace=fsync,fdatasync", "-o", trace,
                Command.path("spool-enqueue"), "--spool", spool, "PUT", "http://127.0.0.1:9/x"
            ], environment: Sanitizer.withoutLeakCheck)
        #expect(result.status == 0, "\(result.stderr)")
        let synced = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").compactMap {
            line -> String? in
            guard let open = line.firstIndex(of: "<"), let close = line[open...].firstIndex(of: ">"),
                line.contains("= 0")
            else { return nil }
            return String(line[line.index(after: open)..<close])
        }
        // Each new directory reaches the disk only once the directory holding it is synced.
        #expect(synced.contains(temporary.directory), "the spool's parent: \(synced)")
        #expect(synced.contains(spool), "the spool, which holds the new folders: \(synced)")
        #expect(synced.contains(spool + "/new"), "new/, after the rename: \(synced)")
        // An existing spool costs nothing more: only the document and new/.
        let second = try Command.run(
            SpoolCreationTests.strace!,
            [
                "-f", "-y", "-e", "trace=fsync", "-o", trace,
                Command.path("spool-enqueue"), "--spool", spool, "PUT", "http://127.0.0.1:9/x"
            ], environment: Sanitizer.withoutLeakCheck)
        #expect(second.status == 0)
        let count = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").filter {
            $0.contains("fsync(") && $0.contains("= 0")
        }.count
        #expect(count == 2, "one fsync of the document, one of new/")
    }

    @Test(.enabled(if: FaultShim.available, "the LD_PRELOAD shim needs a C compiler"))
    func minFreeZeroTurnsTheCheckOffWhereNoFreeSpaceIsReported() throws {
        let temporary = TemporarySpool()
        let noFree = FaultShim.environment(["FAULTSHIM_STATVFS_ZERO": "1"])
        let refused = try Command.run(
            "spool-enqueue", ["--spool", temporary.path, "PUT", "http://127.0.0.1:9/x"], environment: noFree)
        #expect(refused.status == 75, "the default keeps 16 MiB free: \(refused.stderr)")
        #expect(refused.stderr.contains("--min-free"))
        let accepted = try Command.run(
            "spool-enqueue", ["--spool", temporary.path, "--min-free", "0", "PUT", "http://127.0.0.1:9/x"],
            environment: noFree)
        #expect(accepted.status == 0, "\(accepted.stderr)")
        #expect(temporary.names("new").count == 1)
    }
}
