import Foundation
import SpoolTestSupport
import Testing

/// A DELETE that cancels a queued create tells its producer that nothing is queued: the create's removal
/// must be on the disk before spool-enqueue says so, or a power cut brings the create back without the DELETE.
@Suite struct FoldDurabilityTests {
    @Test(
        .enabled(
            if: SpoolCreationTests.strace != nil,
            "strace is needed to watch fsync (apt-get install strace; .ci/run does)"))
    func aCancellingDeleteSyncsNewAfterTheRemoval() throws {
        let spool = TemporarySpool()
        let create = try spool.enqueue([
            "POST", "http://127.0.0.1:9/items", "--creates", "--key", "item-1", "--json", #"{"title":"a"}"#,
        ])
        let trace = spool.directory + "/trace"
        let result = try Command.run(
            SpoolCreationTests.strace!,
            [
                "-f", "-y", "-e", "trace=unlink,unlinkat,fsync", "-o", trace,
                Command.path("spool-enqueue"), "--spool", spool.path, "DELETE", "http://127.0.0.1:9/items/1",
                "--key", "item-1",
            ], environment: Sanitizer.withoutLeakCheck)
        #expect(result.status == 0 && result.stdout.isEmpty, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.contains("cancelled \(create)"), "\(result.stderr)")
        #expect(spool.names("new").isEmpty)
        let lines = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").map(String.init)
        let removal = lines.firstIndex { $0.contains("unlink") && $0.contains(create) && $0.contains("= 0") }
        let sync = lines.lastIndex { $0.contains("fsync(") && $0.contains(spool.path + "/new>") && $0.contains("= 0") }
        #expect(removal != nil, "the create's removal: \(lines)")
        #expect(sync != nil && removal.map { sync! > $0 } == true, "new/ synced after the removal: \(lines)")
    }
}
