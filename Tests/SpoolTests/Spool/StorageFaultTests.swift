import Foundation
import Glibc
import SpoolTestSupport
import Synchronization
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

/// Faults that are not the operation's: the system short of descriptors, a disk or mount failing, a file
/// this user may not read. Each provoked for real where the machine allows; none may file an operation.
@Suite struct StorageFaultTests {
    /// Drops valid documents under plain names the way the shell protocol does: tmp/, then a rename.
    static func drop(_ temporary: TemporarySpool, count: Int, url: String, prefix: String = "op-") -> [String] {
        (0..<count).map { index in
            let name = "\(prefix)\(index)"
            temporary.drop("tmp", name, #"{"method": "PUT", "url": "\#(url)/item/\#(index % 5)", "body": "\#(index)"}"#)
            rename("\(temporary.path)/tmp/\(name)", "\(temporary.path)/new/\(name)")
            return name
        }
    }

    /// The ids waiting in `new/`, whatever state their names carry.
    static func waitingIDs(_ temporary: TemporarySpool) -> [String] {
        temporary.names("new").compactMap { QueueName(FileName($0))?.id }.sorted()
    }

    /// A server whose first request waits until `fault` has been done to the spool under the running
    /// worker, then answers `status`; six operations on six keys; the worker's exit status and stderr.
    static func faultMidRun(spool: String, status: Int, _ fault: () -> Void) throws -> (
        ids: [String], server: TestServer, status: Int32, stderr: String
    ) {
        let answering = DispatchSemaphore(value: 0)
        let arrived = Atomic<Int>(0)
        let server = try TestServer { _ in
            if arrived.add(1, ordering: .relaxed).newValue == 1 { answering.wait() }
            return .respond(status, [:], "")
        }
        var ids: [String] = []
        for index in 0..<6 {
            let result = try Command.run(
                "spool-enqueue", ["--spool", spool, "--min-free", "0", "PUT", server.baseURL + "/item/\(index)"])
            #expect(result.status == 0, "\(result.stderr)")
            ids.append(result.stdout.trimmingCharacters(in: .newlines))
        }
        let (process, out, err) = try Command.start("spool-send", ["--spool", spool, "--once", "--concurrency", "1"])
        let deadline = Date().addingTimeInterval(30)
        while arrived.load(ordering: .relaxed) == 0, Date() < deadline { usleep(10_000) }
        fault()
        answering.signal()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        _ = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (ids, server, process.terminationStatus, stderr)
    }

    @Test func lowOpenFileLimitNeverFilesAndNeverCrashes() throws {
        let server = try TestServer { _ in .respond(204, [:], "") }
        defer { server.stop() }
        let temporary = TemporarySpool()
        let dropped = StorageFaultTests.drop(temporary, count: 40, url: server.baseURL).sorted()
        for limit in [8, 10, 11, 12, 14, 16, 24] {
            let result = try Command.run(
                "/bin/sh",
                [
                    "-c", "ulimit -n \(limit) && exec \"$0\" \"$@\"", Command.path("spool-send"),
                    "--spool", temporary.path, "--once", "--concurrency", "8"
                ], environment: Sanitizer.withoutLeakCheck)
            #expect(result.status == 75, "ulimit -n \(limit): status \(result.status): \(result.stderr)")
            #expect(
                result.stderr.contains("EMFILE") || result.stderr.contains("Too many open files")
                    || result.stderr.contains("open-file limit"),
                "ulimit -n \(limit): \(result.stderr)")
            #expect(
                StorageFaultTests.waitingIDs(temporary) == dropped, "ulimit -n \(limit): every operation still waits")
            #expect(temporary.names("failed").isEmpty && temporary.names("cur").isEmpty, "ulimit -n \(limit)")
        }
        #expect(server.requests.isEmpty)
        try temporary.send()
        #expect(server.requests.count == 40)
        #expect(temporary.names("new").isEmpty && temporary.names("failed").isEmpty)
    }

    @Test func intakeWithoutDescriptorsLeavesEveryFileInPlace() throws {
        let temporary = TemporarySpool()
        let dropped = StorageFaultTests.drop(temporary, count: 10, url: "http://127.0.0.1:9")
        let result = try Command.run("spool-testhelper", ["intake-starved", temporary.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.lines == Array(repeating: "fault EMFILE", count: 10), "\(result.stdout)")
        #expect(temporary.names("new") == dropped.sorted(), "not admitted, not filed")
        #expect(temporary.names("failed").isEmpty)
    }

    @Test(.enabled(if: Mounts.available, "tmpfs mounts are needed; see the printed reason"))
    func spoolRemountedReadOnlyMidRunStopsTheRunAndLosesNothing() throws {
        let temporary = TemporarySpool()
        let disk = temporary.directory + "/disk"
        try Mounts.tmpfs(disk, size: "8m")
        defer { Mounts.unmount(disk) }
        let spool = disk + "/spool"
        let (ids, server, status, stderr) = try StorageFaultTests.faultMidRun(spool: spool, status: 400) {
            #expect(
                Mounts.run(["mount", "-o", "remount,ro", disk]) == 0,
                "a running worker must not keep the spool from being remounted read-only")
        }
        defer { server.stop() }
        #expect(status == 74, "\(stderr)")
        #expect(stderr.contains("Read-only file system (EROFS)") && stderr.contains(spool), "\(stderr)")
        let names = { (folder: String) in
            ((try? FileManager.default.contentsOfDirectory(atPath: "\(spool)/\(folder)")) ?? []).filter {
                !$0.hasPrefix(".")
            }
        }
        let queued = (names("new") + names("cur")).compactMap { QueueName(FileName($0))?.id }.sorted()
        #expect(queued == ids.sorted(), "every operation in new/ or cur/ exactly once")
        #expect(names("failed").isEmpty, "the 400 could not be filed, so nothing was")
        #expect(server.requests.count == 1, "the run stopped at the first fault")

        Mounts.remount(disk, readOnly: false)
        let again = try Command.run("spool-send", ["--spool", spool, "--once"])
        #expect(again.status == 0, "\(again.stderr)")
        let filed = names("failed")
        #expect(filed.filter { !$0.hasSuffix(".why") }.sorted() == ids.sorted())
        #expect(ids.allSatisfy { filed.contains($0 + ".why") })
        #expect(names("new").isEmpty && names("cur").isEmpty)
    }

    @Test(.enabled(if: BindMount.available, "bindfs (FUSE) is needed; see the printed reason"))
    func mountGoneMidRunStopsTheRunAndLosesNothing() throws {
        let temporary = TemporarySpool()
        var mount = try BindMount(base: temporary.directory + "/fuse")
        let spool = mount.path + "/spool"
        let (_, server, status, stderr) = try StorageFaultTests.faultMidRun(spool: spool, status: 204) {
            mount.killDaemon()
        }
        defer { server.stop() }
        #expect(status == 75, "a mount out of reach passes: \(stderr)")
        #expect(stderr.contains("ENOTCONN"), "\(stderr)")

        // The mount comes back: what was done is gone, the rest is delivered once.
        mount.stop()
        mount = try BindMount(base: temporary.directory + "/fuse")
        let again = try Command.run("spool-send", ["--spool", spool, "--once"])
        #expect(again.status == 0, "\(again.stderr)")
        let delivered = Set(server.requests.map(\.path))
        #expect(delivered == Set((0..<6).map { "/item/\($0)" }))
        #expect(server.requests.count <= 7, "at most the interrupted request again")
        let left =
            ((try? FileManager.default.contentsOfDirectory(atPath: spool + "/failed")) ?? [])
            + ((try? FileManager.default.contentsOfDirectory(atPath: spool + "/new")) ?? [])
        #expect(left.isEmpty, "\(left)")
        withExtendedLifetime(mount) {}
    }

    @Test(.enabled(if: BindMount.available, "bindfs (FUSE) is needed; see the printed reason"))
    func aWatcherWaitsOutAMountGoneAndLeavesForANewOne() throws {
        let temporary = TemporarySpool()
        var mount = try BindMount(base: temporary.directory + "/fuse")
        let spool = mount.path + "/spool"
        let server = try TestServer { _ in .respond(204, [:], "") }
        defer { server.stop() }
        // The sender never makes a spool: it is made first, or the watcher would refuse the path (66).
        let made = try Command.run("spool-ctl", ["--spool", spool, "init"])
        try #require(made.status == 0, "\(made.stderr)")
        let (watcher, _, errPipe) = try Command.start("spool-send", ["--spool", spool, "--watch"])
        let err = OutputWatcher(errPipe)
        let first = try Command.run(
            "spool-enqueue", ["--spool", spool, "--min-free", "0", "PUT", server.baseURL + "/item/0"])
        #expect(first.status == 0, "\(first.stderr)")
        for _ in 0..<100 where server.requests.isEmpty { usleep(50_000) }
        mount.killDaemon()
        // Its notice says it waits; a second one, 5 s later, that it waited and stayed.
        #expect(err.wait(forOccurrences: 2, of: "trying again in 5s", timeout: 30), "\(err.text)")
        #expect(watcher.isRunning, "a mount out of reach (ENOTCONN) is waited out, not a reason to exit")
        mount.stop()
        mount = try BindMount(base: temporary.directory + "/fuse")
        let remounted = Date()
        for _ in 0..<200 where watcher.isRunning { usleep(50_000) }
        let left = Date().timeIntervalSince(remounted)
        if watcher.isRunning { watcher.interrupt() }
        watcher.waitUntilExit()
        let stderr = err.all()
        #expect(watcher.terminationStatus == 75 && stderr.contains("mounted again"), "\(stderr)")
        #expect(stderr.contains("ENOTCONN") && stderr.contains("trying again in 5s"), "\(stderr)")
        #expect(left < 7, "the watcher left \(left) s after the new mount")
        #expect(server.requests.count == 1)
        withExtendedLifetime(mount) {}
    }

    @Test(.enabled(if: Nobody.unavailable == nil, "needs root and setpriv to run the worker as nobody"))
    func fileTheWorkerMayNotReadIsLeftForTheOperator() throws {
        let server = try TestServer { _ in .respond(204, [:], "") }
        defer { server.stop() }
        let temporary = TemporarySpool()
        let dropped = StorageFaultTests.drop(temporary, count: 5, url: server.baseURL)
        chmod("\(temporary.path)/new/\(dropped[2])", 0)
        Nobody.take(temporary)
        let result = try Nobody.run("spool-send", ["--spool", temporary.path, "--once"])
        #expect(result.status == 74, "\(result.stderr)")
        #expect(
            result.stderr.contains("Permission denied (EACCES)") && result.stderr.contains(dropped[2]),
            "\(result.stderr)")
        #expect(temporary.names("new") == [dropped[2]], "the unreadable file stays, untouched")
        #expect(temporary.names("failed").isEmpty)
        #expect(server.requests.count == 4, "the other keys went on")
    }

    @Test(
        .enabled(if: FaultShim.available, "the LD_PRELOAD shim needs a C compiler"),
        arguments: ["EIO", "ESTALE", "ENOTCONN"])
    func diskErrorsLeaveEveryOperationInPlace(errno name: String) throws {
        let temporary = TemporarySpool()
        let dropped = StorageFaultTests.drop(temporary, count: 8, url: "http://127.0.0.1:9")
        let result = try Command.run(
            "spool-send", ["--spool", temporary.path, "--once"],
            environment: FaultShim.environment(["FAULTSHIM_OPEN": "\(name):op-"]))
        #expect(result.status == (name == "EIO" ? 74 : 75), "\(result.stderr)")
        #expect(result.stderr.contains("(\(name))") && result.stderr.contains("/new/op-"), "\(result.stderr)")
        #expect(temporary.names("new") == dropped.sorted())
        #expect(temporary.names("failed").isEmpty)
    }

    /// Why a folder cannot be made append-only here (`chattr +a`: entries may come, none may go), or nil.
    static let appendOnlyUnavailable: String? = {
        guard getuid() == 0 else { return "needs root to set the append-only flag (CAP_LINUX_IMMUTABLE)" }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/chattr") else {
            return "needs /usr/bin/chattr (Debian's e2fsprogs)"
        }
        // Where TemporarySpool makes its spools.
        let probe = "/tmp/spool-append-only-\(getpid())"
        try? FileManager.default.createDirectory(atPath: probe, withIntermediateDirectories: true)
        defer {
            _ = Mounts.run(["chattr", "-a", probe])
            rmdir(probe)
        }
        guard Mounts.run(["chattr", "+a", probe]) == 0 else {
            return "the file system of /tmp has no append-only flag"
        }
        return nil
    }()

    /// A delivered write that the disk will not let out of `cur/` (neither retired nor removed: the folder
    /// is append-only) stops its lane: the key's next write waits until the first is sent again, by the next
    /// run, with the same key. Going on would have sent the second, then the first again over it.
    @Test(.enabled(if: StorageFaultTests.appendOnlyUnavailable == nil, "\(StorageFaultTests.appendOnlyUnavailable ?? "")"))
    func aDeliveredWriteStuckInCurStopsItsLane() throws {
        let temporary = TemporarySpool()
        let server = try TestServer { _ in .respond(204, [:], "") }
        defer { server.stop() }
        for body in ["1", "2"] {
            let result = try Command.run(
                "spool-enqueue", ["--spool", temporary.path, "PUT", server.baseURL + "/stuck/k", "--body", body])
            #expect(result.status == 0, "\(result.stderr)")
        }
        let cur = temporary.path + "/cur"
        try #require(Mounts.run(["chattr", "+a", cur]) == 0)
        var appendOnly = true
        defer { if appendOnly { _ = Mounts.run(["chattr", "-a", cur]) } }
        let stuck = try Command.run("spool-send", ["--spool", temporary.path, "--once"])
        #expect(Mounts.run(["chattr", "-a", cur]) == 0)
        appendOnly = false
        let bodies = { server.requests.map { String(decoding: $0.body, as: UTF8.self) } }
        #expect(bodies() == ["1"], "the second write waits for the first: \(bodies())")
        #expect(stuck.status == 74 && stuck.stderr.contains("/cur/"), "\(stuck.status): \(stuck.stderr)")
        #expect(temporary.names("cur").count == 1 && temporary.names("new").count == 1)

        let again = try Command.run("spool-send", ["--spool", temporary.path, "--once"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(bodies() == ["1", "1", "2"], "the first sent again, then the second: \(bodies())")
        let keys = server.requests.map { $0.header("Idempotency-Key") ?? "" }
        #expect(keys.count == 3 && keys[0] == keys[1] && keys[1] != keys[2], "\(keys)")
        #expect(temporary.names("cur").isEmpty && temporary.names("new").isEmpty)
    }
}
