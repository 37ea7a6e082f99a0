import Foundation
import Glibc

/// Running one of spool's programs as the user nobody (uid and gid 65534, no other groups), through
/// util-linux's `setpriv`: a spool another user owns, with root beside it.
enum Nobody {
    /// Why programs cannot be run as nobody here, or nil when they can.
    static let unavailable: String? = {
        guard geteuid() == 0 else { return "not root, so cannot run a program as another user" }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else {
            return "setpriv (util-linux) is missing"
        }
        return nil
    }()

    /// Gives `temporary`'s spool to nobody, the folder it is in open to them.
    static func take(_ temporary: TemporarySpool) {
        chmod(temporary.directory, 0o755)
        _ = Mounts.run(["chown", "-R", "65534:65534", temporary.path])
    }

    /// Runs `program` (spool-send, spool-ctl, …) with `arguments` as nobody.
    static func run(_ program: String, _ arguments: [String], environment: [String: String] = [:],
                    stdin: Data? = nil) throws -> CommandResult {
        try Command.run(
            "/usr/bin/setpriv",
            ["--reuid=65534", "--regid=65534", "--clear-groups", Command.path(program)] + arguments,
            environment: environment, stdin: stdin)
    }
}
