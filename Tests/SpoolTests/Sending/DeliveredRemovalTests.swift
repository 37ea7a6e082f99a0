import Foundation
import SpoolTestSupport
@testable import SpoolSystem
import Testing

/// How a delivered operation leaves `cur/` (`Worker.takeOut`): renamed into `tmp/`, out of its key's way,
/// when its lane sends the key's next write; else removed in place by one `unlinkat`, after its lane moves on.
@Suite struct DeliveredRemovalTests {
    /// `spool-send --once` under strace over one key of three writes and two keys of one: the first two of the
    /// three are retired to `tmp/` before the next is claimed; the last of each key is unlinked in `cur/`.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/strace"), "needs strace; .ci/run installs it"))
    func onlyAWriteWithAnotherOfItsKeyAfterItIsRetired() throws {
        let spool = TemporarySpool()
        let server = try TestServer { _ in .respond(204, [:], "") }
        defer { server.stop() }
        for body in ["1", "2", "3"] { try spool.enqueue(["PUT", server.baseURL + "/item/a", "--body", body]) }
        for key in ["b", "c"] { try spool.enqueue(["PUT", server.baseURL + "/item/\(key)", "--body", key]) }
        let trace = spool.directory + "/trace"
        let traced = try Command.run(
            "/usr/bin/strace",
            ["-f", "-qq", "-y", "-e", "trace=renameat2,unlinkat", "-o", trace, Command.path("spool-send"), "--spool",
             spool.path, "--once"], environment: Sanitizer.withoutLeakCheck)
        #expect(traced.status == 0, "\(traced.stderr)")
        let bodies = server.requests.filter { $0.path == "/item/a" }.map { String(decoding: $0.body, as: UTF8.self) }
        #expect(bodies == ["1", "2", "3"], "in order")
        #expect(server.requests.count == 5)
        let calls = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
        // With -y each folder's descriptor is printed with its path: `renameat2(6</…/cur>, "NAME", 4</…/tmp>, …`.
        let retired = calls.filter { $0.contains("renameat2(") && $0.contains("/cur>, \"") && $0.contains("/tmp>, \"") }
        let removedInPlace = calls.filter { $0.contains("unlinkat(") && $0.contains("/cur>, \"") }
        #expect(retired.count == 2, "\(retired)")
        #expect(removedInPlace.count == 3, "\(removedInPlace)")
        for folder in ["new", "cur", "tmp"] { #expect(spool.names(folder).isEmpty, "\(folder)/: \(spool.names(folder))") }
    }

    /// On a disk slow to free a file (each `unlinkat` waits 50 ms, `FAULTSHIM_UNLINK_DELAY_MS`), delivered
    /// writes waiting in `cur/` for their removal stay at most `--concurrency`; the rest are retired to
    /// `tmp/`. So `cur/`, which a `kill -9` would send again, never holds more than twice the concurrency.
    @Test(.enabled(if: FaultShim.available, "needs the LD_PRELOAD shim (a C compiler)"))
    func aSlowDiskLeavesAtMostTheConcurrencyOfDeliveredWritesInCur() throws {
        let spool = TemporarySpool()
        let cur = spool.path + "/cur"
        let most = Locked(0)
        let server = try TestServer { _ in
            let claimed = ((try? FileManager.default.contentsOfDirectory(atPath: cur)) ?? []).count
            most.withLock { $0 = max($0, claimed) }
            return .respond(204, [:], "")
        }
        defer { server.stop() }
        for index in 0..<40 { try spool.enqueue(["PUT", server.baseURL + "/item/\(index)"]) }
        let sent = try Command.run(
            "spool-send", ["--spool", spool.path, "--once", "--concurrency", "4"],
            environment: FaultShim.environment(["FAULTSHIM_UNLINK_DELAY_MS": "50"]))
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(server.requests.count == 40)
        let seen = most.withLock { $0 }
        #expect(seen <= 8, "cur/ held \(seen) files at once: 4 in flight and at most 4 delivered")
        #expect(seen > 4, "no delivered write ever waited in cur/: the test did not slow the removals")
        for folder in ["new", "cur", "tmp"] { #expect(spool.names(folder).isEmpty, "\(folder)/: \(spool.names(folder))") }
    }
}
