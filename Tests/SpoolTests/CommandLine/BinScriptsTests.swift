import Foundation
import Glibc
import Testing

/// The scripts in `bin/`, with `bin/` first on `PATH` (the natural way to use the launchers): none shadows a
/// system command (a `bin/install` once ran itself instead of coreutils' until some 1,400 processes), and each
/// ends.
@Suite struct BinScriptsTests {
    /// The programs in `bin/`.
    static let scripts: [String] = {
        let bin = Repository.root + "/bin"
        return ((try? FileManager.default.contentsOfDirectory(atPath: bin)) ?? []).filter { name in
            var status = stat()
            return stat("\(bin)/\(name)", &status) == 0 && status.st_mode & S_IFMT == S_IFREG
                && access("\(bin)/\(name)", X_OK) == 0
        }.sorted()
    }()

    @Test func noScriptSharesItsNameWithASystemCommand() {
        #expect(Self.scripts.contains("spool-install") && Self.scripts.contains("spool-send"), "\(Self.scripts)")
        for name in Self.scripts {
            let shadowed = ["/usr/bin", "/bin", "/usr/sbin", "/sbin"].filter { access("\($0)/\(name)", F_OK) == 0 }
            #expect(shadowed.isEmpty, "bin/\(name) hides \(shadowed.map { "\($0)/\(name)" })")
        }
    }

    /// Every launcher (`--help`) and the installer, run with `bin/` first on `PATH`, ends. The launchers run
    /// from a copy of `bin/` whose release build is the tests' own (so that no release build is started).
    @Test func everyScriptEndsWithItsFolderFirstOnPath() throws {
        let root = NSTemporaryDirectory() + "spool-bin-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: root) }
        let manager = FileManager.default
        try manager.createDirectory(atPath: root + "/.build", withIntermediateDirectories: true)
        try manager.createDirectory(atPath: root + "/Sources", withIntermediateDirectories: true)
        try manager.copyItem(atPath: Repository.root + "/bin", toPath: root + "/bin")
        try manager.createSymbolicLink(atPath: root + "/.build/release", withDestinationPath: Command.products)
        // The stamp newer than every source, by its time, not by a wait: no build is started.
        #expect(manager.createFile(atPath: root + "/Package.swift", contents: Data()))
        #expect(manager.createFile(atPath: root + "/.build/spool-built", contents: Data()))
        try manager.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: root + "/Package.swift")
        let path = "\(root)/bin:" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        for name in Self.scripts where name.hasPrefix("spool-") && name != "spool-install" {
            let run = try Command.run("\(root)/bin/\(name)", ["--help"], environment: ["PATH": path], timeout: 60)
            #expect(run.status == 0 && !run.stdout.isEmpty, "bin/\(name) --help: \(run.status) \(run.stderr)")
        }
        // The installer, from the repository (it copies the man pages beside it), its bin/ first on PATH.
        let prefix = root + "/prefix"
        let repositoryPath = "\(Repository.root)/bin:" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let install = try Command.run(
            "\(Repository.root)/bin/spool-install", [prefix],
            environment: ["PATH": repositoryPath, "SPOOL_BINARIES": Command.products], timeout: 60)
        #expect(install.status == 0, "\(install.stderr)")
        #expect(access(prefix + "/bin/spool-send", X_OK) == 0)
        #expect(access(prefix + "/share/man/man8/spool-send.8", F_OK) == 0)
    }

    /// `spool-bench`'s cases that need nginx say "n/a" and why on a machine without it, instead of crashing
    /// (`SPOOL_BENCH_MISSING` makes the bench take nginx for missing).
    @Test(arguments: ["uploads", "pace"])
    func aBenchCaseWithoutNginxSaysWhy(only: String) throws {
        let run = try Command.run(
            "spool-bench", ["--quick", "--only", only], environment: ["SPOOL_BENCH_MISSING": "nginx"], timeout: 120)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("\(only): n/a: needs nginx"), "\(run.stdout)")
    }
}
