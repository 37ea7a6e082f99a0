import Foundation
import SpoolTestSupport
@testable import SpoolSystem
import Testing

/// How a delivered operation leaves `cur/` (`Remover.takeOut`): renamed into `tmp/`, out of its key's way,
/// when its lane sends the key's next write; else removed in place by one `unlinkat`, after its lane moves on.
@Suite struct DeliveredRemovalTests {
    /// `spool-send --once` under strace over one key of three writes, two keys of one and a handler's job: the
    /// first two of the three are retired to `tmp/`, and so is the job (a crash must not run a finished job
    /// again); the last write of each key is unlinked in `cur/`.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/strace"), "needs strace; .ci/run installs it"))
    func onlyAWriteWithAnotherOfItsKeyAfterItIsRetired() throws {
        let spool = TemporarySpool(), fixture = HandlerFixture()
        fixture.script("note", "echo ran >> WORK/log")
        let server = try TestServer { _ in .respond(204, [:], "") }
        defer { server.stop() }
        try spool.enqueue(["--handler", "note"])
        for body in ["1", "2", "3"] { try spool.enqueue(["PUT", server.baseURL + "/item/a", "--body", body]) }
        for key in ["b", "c"] { try spool.enqueue(["PUT", server.baseURL + "/item/\(key)", "--body", key]) }
        let trace = spool.directory + "/trace"
        let traced = try Command.run(
            "/usr/bin/strace",
            ["-f", "-qq", "-y", "-e", "trace=renameat2,unlinkat", "-o", trace, Command.path("spool-send"), "--spool",
             spool.path, "--once"] + fixture.options, environment: Sanitizer.withoutLeakCheck)
        #expect(traced.status == 0, "\(traced.stderr)")
        #expect(fixture.lines("log") == ["ran"])
        let bodies = server.requests.filter { $0.path == "/item/a" }.map { String(decoding: $0.body, as: UTF8.self) }
        #expect(bodies == ["1", "2", "3"], "in order")
        #expect(server.requests.count == 5)
        let calls = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
        // With -y each folder's descriptor is printed with its path: `renameat2(6</…/cur>, "NAME", 4</…/tmp>, …`.
        let retired = calls.filter { $0.contains("renameat2(") && $0.contains("/cur>, \"") && $0.contains("/tmp>, \"") }
        let removedInPlace = calls.filter { $0.contains("unlinkat(") && $0.contains("/cur>, \"") }
        #expect(retired.count == 3, "\(retired)")
        #expect(removedInPlace.count == 3, "\(removedInPlace)")
        for folder in ["new", "cur", "tmp"] { #expect(spool.names(folder).isEmpty, "\(folder)/: \(spool.names(folder))") }
    }

    /// While no removal in `cur/` can finish (`FaultShim.UnlinkGate`), delivered writes waiting there stay at
    /// most `--concurrency`; the rest are retired to `tmp/`. So `cur/`, which a `kill -9` would send again,
    /// never holds more than twice the concurrency.
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
        let gate = FaultShim.UnlinkGate(in: spool.directory)
        let (process, _, _) = try Command.start(
            "spool-send", ["--spool", spool.path, "--once", "--concurrency", "4"], environment: gate.environment)
        let deadline = Date(timeIntervalSinceNow: 20)
        while server.requests.count < 40, process.isRunning, Date() < deadline { usleep(2_000) }
        #expect(server.requests.count == 40, "all sent while no removal in cur/ could finish")
        // Once the last answers are taken in, only the writes waiting for their removal are left in cur/.
        while spool.names("cur").count > 4, process.isRunning, Date() < deadline { usleep(2_000) }
        #expect(spool.names("cur").count == 4, "delivered writes waiting in cur/: \(spool.names("cur").count)")
        gate.open()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let seen = most.withLock { $0 }
        #expect(seen <= 8, "cur/ held \(seen) files at once: 4 in flight and at most 4 delivered")
        for folder in ["new", "cur", "tmp"] { #expect(spool.names(folder).isEmpty, "\(folder)/: \(spool.names(folder))") }
    }

    /// A write that depends on another is sent only once the other has left `cur/`. Here the other's removal
    /// waits (`FaultShim.UnlinkGate`) until the dependant has been found waiting for it (`-v`): a crash in
    /// between would send the first again after the second.
    @Test(.enabled(if: FaultShim.available, "needs the LD_PRELOAD shim (a C compiler)"))
    func aDependantIsSentOnlyOnceItsDependencyLeftCur() throws {
        let spool = TemporarySpool()
        let cur = spool.path + "/cur"
        let parent = Locked(""), parentInCur = Locked<[String]>([])
        let server = try TestServer { request in
            if request.path == "/child" {
                let id = parent.withLock { $0 }
                let left = ((try? FileManager.default.contentsOfDirectory(atPath: cur)) ?? []).filter { $0.hasPrefix(id) }
                parentInCur.withLock { $0 += left }
            }
            return .respond(201, [:], "")
        }
        defer { server.stop() }
        let id = try spool.enqueue(["POST", server.baseURL + "/parent"])
        parent.withLock { $0 = id }
        let child = try spool.enqueue(["POST", server.baseURL + "/child", "--depends-on", id])
        let gate = FaultShim.UnlinkGate(in: spool.directory)
        defer { gate.open() }
        let (process, _, errors) = try Command.start(
            "spool-send", ["--spool", spool.path, "--once", "--concurrency", "1", "-v"], environment: gate.environment)
        let stderr = OutputWatcher(errors)
        #expect(stderr.wait(for: "\(id): done"), "the parent was delivered: \(stderr.text)")
        #expect(stderr.wait(for: "\(child): waits for \(id)"), "the child waited for it: \(stderr.text)")
        #expect(server.requests.map(\.path) == ["/parent"], "not sent while the parent is in cur/")
        gate.open()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(stderr.all())")
        #expect(server.requests.map(\.path) == ["/parent", "/child"])
        #expect(parentInCur.withLock { $0 }.isEmpty, "the child went while the parent was in cur/")
    }

    /// When the disk refuses the removal (`cur/` is append-only), the dependant is not sent in that run, though
    /// the lanes go one by one and the dependency's answer came first; it is sent after the dependency is sent
    /// again by the next run.
    @Test(.enabled(if: StorageFaultTests.appendOnlyUnavailable == nil, "\(StorageFaultTests.appendOnlyUnavailable ?? "")"))
    func aDependantWaitsWhileItsDeliveredDependencyCannotLeaveCur() throws {
        let temporary = TemporarySpool()
        let server = try TestServer { _ in .respond(201, [:], "") }
        defer { server.stop() }
        let parent = try temporary.enqueue(["POST", server.baseURL + "/parent"])
        try temporary.enqueue(["POST", server.baseURL + "/child", "--depends-on", parent])
        let cur = temporary.path + "/cur"
        try #require(Mounts.run(["chattr", "+a", cur]) == 0)
        var appendOnly = true
        defer { if appendOnly { _ = Mounts.run(["chattr", "-a", cur]) } }
        let stuck = try Command.run("spool-send", ["--spool", temporary.path, "--once", "--concurrency", "1"])
        #expect(Mounts.run(["chattr", "-a", cur]) == 0)
        appendOnly = false
        let paths = { server.requests.map(\.path) }
        #expect(paths() == ["/parent"], "the child waits for the parent to leave cur/: \(paths())")
        #expect(stuck.status == 74 && stuck.stderr.contains("/cur/"), "\(stuck.status): \(stuck.stderr)")
        #expect(temporary.names("cur").count == 1 && temporary.names("new").count == 1)

        let again = try Command.run("spool-send", ["--spool", temporary.path, "--once", "--concurrency", "1"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(paths() == ["/parent", "/parent", "/child"], "\(paths())")
        #expect(temporary.names("cur").isEmpty && temporary.names("new").isEmpty)
    }
}
