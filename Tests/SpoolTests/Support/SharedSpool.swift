import Foundation
import Glibc
import Testing

/// spool(5)'s layout for many users, made by root for a test: nobody (65534) owns the spool and sends from
/// it, and producers, any uid (no account needed), drop into its `tmp/` and `new/` (sticky, set-group-ID,
/// others may write and search) with `spool-enqueue`, run through `setpriv`.
struct SharedSpool {
    let spool: TemporarySpool
    /// A spool.conf naming the producer policy `policyPath`, and `[default]` settings `more` beside it.
    let config: String
    let policyPath: String

    init(policy: String = "", settings more: String = "", in parent: String = "/tmp") throws {
        spool = TemporarySpool(in: parent)
        _ = try spool.open()
        chmod(spool.directory, 0o755)
        config = spool.directory + "/spool.conf"
        policyPath = spool.directory + "/producers"
        try "[default]\nproducers = \(policyPath)\n\(more)".write(toFile: config, atomically: false, encoding: .utf8)
        try policy.write(toFile: policyPath, atomically: false, encoding: .utf8)
        Nobody.take(spool)
        chmod(spool.path, 0o755)
        chmod(spool.path + "/tmp", 0o3733)
        chmod(spool.path + "/new", 0o3733)
    }

    /// Runs spool-enqueue as `uid`; returns the id it printed.
    @discardableResult
    func produce(_ uid: Int, _ arguments: [String]) throws -> String {
        let result = try tryProducing(uid, arguments)
        try #require(result.status == 0, "spool-enqueue as \(uid): \(result.stderr)")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs spool-enqueue as `uid`, with this spool.conf (`SPOOL_CONFIG`), whatever it answers.
    func tryProducing(_ uid: Int, _ arguments: [String]) throws -> CommandResult {
        try Command.run(
            "/usr/bin/setpriv", ["--reuid=\(uid)", "--regid=65534", "--clear-groups",
                                 Command.path("spool-enqueue"), "--spool", spool.path] + arguments,
            environment: ["SPOOL_CONFIG": config])
    }

    /// Runs spool-send once as nobody, the owner, with this spool.conf.
    func send(_ arguments: [String] = []) throws -> CommandResult {
        try Nobody.run("spool-send", ["--spool", spool.path, "--once", "--config", config] + arguments)
    }
}
