import Foundation
import Glibc
import Testing

/// The Debian package as `bin/package` builds it from the release binaries, and what the package test does
/// with an installed one.
enum Package {
    /// The units the package installs in /lib/systemd/system.
    static let units = [
        "spool-send.service", "spool-send@.service", "spool-send-once.service", "spool-send-once.timer",
        "spool-send-once.path", "spool-metrics.service", "spool-metrics.timer",
    ]

    static var releaseBinaries: String { Repository.root + "/.build/release" }

    /// Why the release binaries cannot be packaged as they are: missing, or older than a source (bin/launcher's
    /// stamp rule); nil when they are fresh.
    static var releaseBinariesAreStale: String? {
        let stamp = Repository.root + "/.build/spool-built"
        guard FileManager.default.isExecutableFile(atPath: releaseBinaries + "/spool-send"),
              FileManager.default.fileExists(atPath: stamp)
        else { return "no release build: run bin/spool-send once (it builds them), as .ci/run does" }
        let newer = try? Command.run(
            "/usr/bin/find", ["Sources", "Package.swift", "-newer", stamp, "-print", "-quit"],
            workingDirectory: Repository.root)
        guard newer?.status == 0, newer?.stdout.isEmpty == true else {
            return "the release build is older than the sources: run bin/spool-send once to rebuild it"
        }
        return nil
    }

    /// Builds the .deb into a temporary folder and returns its path.
    static func build() throws -> String {
        let out = makeTemporaryDirectory("spool-package")
        let built = try Command.run(
            Repository.root + "/bin/package", [out], environment: ["SPOOL_BINARIES": releaseBinaries])
        try #require(built.status == 0, "bin/package: \(built.stderr)")
        return built.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Purges the package, installed or not.
    static func purge() { _ = try? Command.run("/usr/bin/dpkg", ["-P", "spool"]) }

    /// The names in a folder of the host spool, as root sees them.
    static func names(_ folder: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: "/var/spool/spool/" + folder)) ?? []
    }

    /// Runs a one-shot unit's `ExecStart=` by hand as its `User=` and `Group=` would (this machine runs no
    /// systemd): the same command line, user, groups and working directory (/).
    static func runUnit(_ unit: String) throws -> CommandResult {
        let text = try String(contentsOfFile: "/lib/systemd/system/" + unit, encoding: .utf8)
        func value(_ key: String) -> String? {
            text.split(separator: "\n").first { $0.hasPrefix(key + "=") }.map { String($0.dropFirst(key.count + 1)) }
        }
        let command = try #require(value("ExecStart")).split(separator: " ").map(String.init)
        return try Command.run(
            "/usr/bin/setpriv",
            ["--reuid=\(try #require(value("User")))", "--regid=\(try #require(value("Group")))", "--init-groups"]
                + command, workingDirectory: "/")
    }

    /// spool(5)'s shell drop for the host spool, as a reader copies it, sending to `url`; `closed` makes the
    /// file mode 0600 before it is renamed (the default ACL overrides a umask, not a chmod).
    static func shellDrop(_ url: String, closed: Bool = false) throws -> String {
        let block = try #require(
            try ManPageExamples.blocks(in: "spool.5").first { $0.contains("spool=/var/spool/spool") },
            "spool(5) shows the shell drop into the host's spool")
        #expect(block.contains("https://api.example.com/notes/1") && block.contains("umask 027"))
        let script = block.replacingOccurrences(of: "https://api.example.com/notes/1", with: url)
        guard closed else { return script }
        return script.replacingOccurrences(
            of: "sync \"$spool/tmp/$name\"", with: "chmod 600 \"$spool/tmp/$name\"; sync \"$spool/tmp/$name\"")
    }
}

/// Two unprivileged users made for a test: alice, in no group of spool's, and bob, a member of the group
/// spool (the package's drop group). Removed with `remove`.
struct TestUsers {
    let alice = "spooltest-alice", bob = "spooltest-bob"
    let aliceUID: String

    init() throws {
        for user in [alice, bob] {
            _ = try? Command.run("/usr/sbin/userdel", [user])
            let made = try Command.run("/usr/sbin/useradd", ["--no-create-home", "--user-group", user])
            try #require(made.status == 0, "useradd \(user): \(made.stderr)")
        }
        let joined = try Command.run("/usr/sbin/usermod", ["-a", "-G", "spool", bob])
        try #require(joined.status == 0, "usermod: \(joined.stderr)")
        aliceUID = try Command.run("/usr/bin/id", ["-u", alice]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs `program` as `user`, with their groups, from /.
    func run(_ user: String, _ program: String, _ arguments: [String], environment: [String: String] = [:],
             stdin: Data? = nil) throws -> CommandResult {
        try Command.run(
            "/usr/bin/setpriv", ["--reuid=\(user)", "--regid=\(user)", "--init-groups", program] + arguments,
            environment: environment, stdin: stdin, workingDirectory: "/")
    }

    func remove() {
        for user in [alice, bob] { _ = try? Command.run("/usr/sbin/userdel", [user]) }
    }
}
