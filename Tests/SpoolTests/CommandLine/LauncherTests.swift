import Foundation
import Glibc
import Testing

/// `bin/launcher`, the script behind `bin/spool-send`: builds on first use and after a source changes, and
/// only then; quiet on standard error unless the build fails. Run in a copy of the repository's layout
/// with a stand-in `swift` that records each build and, like a real build with nothing to relink, leaves
/// the binary as it was.
@Suite struct LauncherTests {
    @Test func sourceTouchedTwiceRebuildsOnceAndSaysNothing() throws {
        let temporary = TemporarySpool()
        let repo = temporary.directory + "/repo"
        let repository = Repository.root
        for folder in ["bin", "Sources/spool-send", "fakebin"] {
            try FileManager.default.createDirectory(atPath: "\(repo)/\(folder)", withIntermediateDirectories: true)
        }
        writeExecutable(
            repo + "/bin/launcher", try String(contentsOfFile: repository + "/bin/launcher", encoding: .utf8))
        try FileManager.default.createSymbolicLink(atPath: repo + "/bin/spool-send", withDestinationPath: "launcher")
        _ = FileManager.default.createFile(atPath: repo + "/Package.swift", contents: Data("// package\n".utf8))
        _ = FileManager.default.createFile(
            atPath: repo + "/Sources/spool-send/main.swift", contents: Data("// main\n".utf8))
        let fakeSwift = """
            #!/bin/sh
            echo "$*" >> "\(repo)/builds"
            echo "[1/3] Compiling"; echo "warning: something" >&2
            if [ -n "$FAIL_BUILD" ]; then echo "error: it broke" >&2; exit 1; fi
            mkdir -p .build/release
            [ -x .build/release/spool-send ] || { printf '#!/bin/sh\\necho ran "$@"\\n' > .build/release/spool-send; chmod +x .build/release/spool-send; }
            """
        writeExecutable(repo + "/fakebin/swift", fakeSwift)
        let path = "\(repo)/fakebin:/usr/bin:/bin"
        func launch(_ environment: [String: String] = [:]) throws -> CommandResult {
            try Command.run(
                repo + "/bin/spool-send", ["--once"], environment: ["PATH": path].merging(environment) { $1 })
        }
        func builds() -> Int {
            ((try? String(contentsOfFile: repo + "/builds", encoding: .utf8)) ?? "").split(separator: "\n").count
        }

        let first = try launch()
        #expect(first.status == 0 && first.stdout == "ran --once\n", "\(first.stderr)")
        #expect(first.stderr.isEmpty, "a build that worked says nothing on standard error: \(first.stderr)")
        #expect(builds() == 1)
        #expect(try launch().stderr.isEmpty)
        #expect(builds() == 1, "nothing changed: no build")

        /// Marks `file` as changed since the last build without waiting for the clock to move on: the launcher's
        /// stamp is dated two seconds back, and the file one second back. Not now: the stamp the next build
        /// writes takes its time from the kernel's coarse clock, which can read a few milliseconds behind
        /// `Date()`, and a file dated `Date()` could then look newer than that build and rebuild again.
        func touchAfterBuild(_ file: String) throws {
            let now = Date()
            try FileManager.default.setAttributes(
                [.modificationDate: now.addingTimeInterval(-2)], ofItemAtPath: repo + "/.build/spool-built")
            try FileManager.default.setAttributes([.modificationDate: now.addingTimeInterval(-1)], ofItemAtPath: file)
        }

        for round in 1...2 {
            try touchAfterBuild(repo + "/Sources/spool-send/main.swift")
            let touched = try launch()
            #expect(touched.status == 0 && touched.stderr.isEmpty, "\(touched.stderr)")
            #expect(builds() == 1 + round, "a touched source builds once")
            let after = try launch()
            #expect(
                after.stderr.isEmpty && builds() == 1 + round,
                "the binary is still older than the source, yet no build again")
        }

        try touchAfterBuild(repo + "/Package.swift")
        let broken = try launch(["FAIL_BUILD": "1"])
        #expect(broken.status == 70)
        #expect(broken.stderr.contains("error: it broke") && broken.stderr.contains("failed"), "\(broken.stderr)")
        #expect(try launch().status == 0 && builds() == 5, "a failed build is tried again next time")
    }
}
