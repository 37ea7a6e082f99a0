import Foundation
import Testing
@testable import SpoolReporting

/// The diff `spool-ctl show --diff` prints is one that `patch` applies: from the server's version it makes mine.
@Suite struct UnifiedDiffTests {
    static let cases: [(String, String)] = [
        ("a\nb\nc\n", "a\nB\nc\n"),
        ("", "only mine\n"),
        ("only theirs\n", ""),
        ((1...40).map { "line \($0)\n" }.joined(), (1...40).map { $0 % 13 == 0 ? "changed \($0)\n" : "line \($0)\n" }.joined()),
        ("{\n  \"a\": 1,\n  \"b\": 2\n}\n", "{\n  \"a\": 1,\n  \"c\": 3,\n  \"b\": 2\n}\n"),
        ("x\ny\n", "y\nx\n"),
    ]

    @Test(arguments: cases.indices) func patchTurnsTheirsIntoMine(_ index: Int) throws {
        let (theirs, mine) = Self.cases[index]
        let diff = UnifiedDiff(old: theirs, new: mine).text(oldLabel: "theirs", newLabel: "mine")
        let directory = makeTemporaryDirectory("diff-test")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try theirs.write(toFile: directory + "/theirs", atomically: true, encoding: .utf8)
        try diff.write(toFile: directory + "/diff", atomically: true, encoding: .utf8)
        let result = try Command.run(
            "/usr/bin/patch", ["-s", "-o", directory + "/out", directory + "/theirs", directory + "/diff"])
        #expect(result.status == 0, "\(diff)\n\(result.stderr)\(result.stdout)")
        #expect(try String(contentsOfFile: directory + "/out", encoding: .utf8) == mine, "\(diff)")
    }

    @Test func sameTextsHaveNoDiff() {
        #expect(UnifiedDiff(old: "a\nb\n", new: "a\nb\n").text(oldLabel: "x", newLabel: "y") == "")
    }

    @Test func distantChangesGetTheirOwnHunks() {
        let old = (1...40).map { "line \($0)" }.joined(separator: "\n")
        var lines = (1...40).map { "line \($0)" }
        lines[2] = "changed 3"
        lines[35] = "changed 36"
        let diff = UnifiedDiff(old: old, new: lines.joined(separator: "\n"))
        #expect(diff.hunks.map(\.header) == ["@@ -1,6 +1,6 @@", "@@ -33,7 +33,7 @@"])
    }
}
