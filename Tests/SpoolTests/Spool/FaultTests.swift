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

/// Full disks, read-only spools, folders on other file systems, queue limits, permissions.
@Suite struct FaultTests {
    @Test(.enabled(if: Mounts.available, "tmpfs mounts are needed; see the printed reason"))
    func fullDiskRefusesCleanlyAndRecovers() throws {
        let temporary = TemporarySpool()
        let disk = temporary.directory + "/disk"
        try Mounts.tmpfs(disk, size: "192k")
        defer { Mounts.unmount(disk) }
        let spool = disk + "/spool"
        // Half the requests fail for good, half for now: the sender on a full disk cannot write every reason,
        // yet every operation must stay in exactly one place.
        let calls = Locked(0)
        let healthy = Atomic<Bool>(false)
        let server = try TestServer { _ in
            if healthy.load(ordering: .relaxed) { return .respond(204, [:], "") }
            return calls.withLock { $0 += 1; return $0 } % 2 == 0 ? .respond(400, [:], "") : .respond(503, [:], "")
        }
        defer { server.stop() }
        let body = String(repeating: "b", count: 3000)
        var queued: [String] = []
        var refusal: CommandResult?
        for _ in 0..<200 {
            let result = try Command.run(
                "spool-enqueue",
                ["--spool", spool, "--min-free", "0", "PUT", server.baseURL + "/x/\(queued.count)", "--body", body])
            if result.status != 0 {
                refusal = result
                break
            }
            queued.append(result.stdout.trimmingCharacters(in: .newlines))
        }
        let full = try #require(refusal, "the disk never filled")
        #expect(full.status == 75)
        // Refused before writing when the free space is visibly too small, or by the write itself (ENOSPC).
        #expect(
            full.stderr.contains("No space left on device")
                || full.stderr.contains("bytes free on the spool's file system"), "\(full.stderr)")
        #expect(full.stderr.contains("nothing was enqueued"), "\(full.stderr)")
        let names = try FileManager.default.contentsOfDirectory(atPath: spool + "/new")
        #expect(
            names.compactMap { QueueName(FileName($0))?.id }.sorted() == queued.sorted(),
            "every printed id and nothing else")
        for name in names {
            let data = try #require(FileManager.default.contents(atPath: "\(spool)/new/\(name)"))
            #expect(throws: Never.self) { _ = try Operation(bytes: [UInt8](data)) }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: spool + "/tmp").isEmpty)

        // A 400 needs room for its reason: on the full disk it cannot be filed, so it stays queued, and the
        // run says so with 75 (the disk is the problem, not the operation).
        let result = try Command.run("spool-send", ["--spool", spool, "--once", "--min-backoff", "0"])
        #expect(result.status == 75, "\(result.stderr)")
        #expect(result.stderr.contains("No space left on device (ENOSPC)"), "\(result.stderr)")
        let inNew = try FileManager.default.contentsOfDirectory(atPath: spool + "/new").compactMap {
            QueueName(FileName($0))?.id
        }
        let filed = try FileManager.default.contentsOfDirectory(atPath: spool + "/failed")
        let inFailed = filed.filter { !$0.hasSuffix(".why") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: spool + "/cur").isEmpty)
        #expect((inNew + inFailed).sorted() == queued.sorted(), "nothing lost, nothing duplicated")
        #expect(inFailed.allSatisfy { filed.contains($0 + ".why") }, "nothing filed without its reason")
        #expect(calls.withLock { $0 } > 1, "both kinds of answer were exercised")

        // The server recovers: the rest is delivered, freeing the disk.
        healthy.store(true, ordering: .relaxed)
        let before = server.requests.count
        let again = try Command.run("spool-send", ["--spool", spool, "--once", "--flush"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: spool + "/new").isEmpty)
        #expect(server.requests.count - before == inNew.count)
    }

    @Test(.enabled(if: Mounts.available, "tmpfs mounts are needed; see the printed reason"))
    func readOnlySpoolIsRefusedAndNothingMoves() throws {
        let temporary = TemporarySpool()
        let disk = temporary.directory + "/ro"
        try Mounts.tmpfs(disk, size: "1m")
        defer { Mounts.unmount(disk) }
        let spool = disk + "/spool"
        try Command.run("spool-enqueue", ["--spool", spool, "PUT", "http://127.0.0.1:9/x"])
        try FileManager.default.removeItem(atPath: spool + "/conflict")
        let before = try FileManager.default.contentsOfDirectory(atPath: spool + "/new")
        Mounts.remount(disk, readOnly: true)
        defer { Mounts.remount(disk, readOnly: false) }
        let enqueue = try Command.run("spool-enqueue", ["--spool", spool, "PUT", "http://127.0.0.1:9/y"])
        #expect(enqueue.status == 73, "the missing conflict/ cannot be created")
        #expect(
            enqueue.stderr.contains("conflict") && enqueue.stderr.contains("Read-only file system"), "\(enqueue.stderr)"
        )
        Mounts.remount(disk, readOnly: false)
        try FileManager.default.createDirectory(atPath: spool + "/conflict", withIntermediateDirectories: false)
        Mounts.remount(disk, readOnly: true)
        let send = try Command.run("spool-send", ["--spool", spool, "--once"])
        #expect(send.status == 74)
        #expect(send.stderr.contains("cannot be written") && send.stderr.contains("Read-only"), "\(send.stderr)")
        let again = try Command.run("spool-enqueue", ["--spool", spool, "PUT", "http://127.0.0.1:9/y"])
        #expect(again.status == 74)
        #expect(try FileManager.default.contentsOfDirectory(atPath: spool + "/new") == before)
    }

    @Test(.enabled(if: Mounts.available, "tmpfs mounts are needed; see the printed reason"))
    func folderOnAnotherFileSystemIsRefused() throws {
        let temporary = TemporarySpool()
        try Mounts.tmpfs(temporary.path + "/tmp", size: "64k")
        defer { Mounts.unmount(temporary.path + "/tmp") }
        let result = try Command.run("spool-enqueue", ["--spool", temporary.path, "PUT", "http://127.0.0.1:9/x"])
        #expect(result.status == 74)
        #expect(result.stderr.contains("another file system"), "\(result.stderr)")
        #expect(temporary.names("new").isEmpty)
        let send = try Command.run("spool-send", ["--spool", temporary.path])
        #expect(send.status == 74)
    }

    @Test func queueLimitsMakeProducersBackOff() throws {
        let spool = TemporarySpool()
        for _ in 0..<3 { try spool.enqueue(["PUT", "http://127.0.0.1:9/x", "--max-queue", "3"]) }
        let fourth = try Command.run(
            "spool-enqueue", ["--spool", spool.path, "PUT", "http://127.0.0.1:9/x"],
            environment: ["SPOOL_MAX_QUEUE": "3"])
        #expect(fourth.status == 75)
        #expect(fourth.stderr.contains("the queue is full (3 operations wait in new/"), "\(fourth.stderr)")
        let roomless = try Command.run(
            "spool-enqueue", ["--spool", spool.path, "--min-free", "\(Int.max / 2)", "PUT", "http://127.0.0.1:9/x"])
        #expect(roomless.status == 75)
        #expect(roomless.stderr.contains("--min-free"))
        #expect(spool.names("new").count == 3)
        #expect(spool.names("tmp").isEmpty)
    }

    @Test func onlyAllowedOriginsAreSentTo() throws {
        let spool = TemporarySpool()
        let server = try TestServer { _ in .respond(204, [:], "") }
        defer { server.stop() }
        try spool.enqueue(["PUT", server.baseURL + "/allowed"])
        let elsewhere = try spool.enqueue(["PUT", "http://localhost:\(server.port)/other-origin"])
        try spool.send(["--allow-origin", server.baseURL])
        #expect(server.requests.map(\.path) == ["/allowed"])
        #expect(spool.operations("failed") == [elsewhere])
        #expect(spool.read("failed", elsewhere + ".why").contains("is not allowed"))
        let bad = try Command.run("spool-send", ["--spool", spool.path, "--allow-origin", "not an origin"])
        #expect(bad.status == 64)
    }

    @Test func checkFlagsLooseModesAndDefaultsArePrivate() throws {
        let spool = TemporarySpool()
        let id = try spool.enqueue(["PUT", "http://127.0.0.1:9/x"])
        for folder in ["tmp", "new", "cur", "failed", "conflict"] {
            let mode =
                try FileManager.default.attributesOfItem(atPath: "\(spool.path)/\(folder)")[.posixPermissions] as? Int
            #expect(mode == 0o700, "\(folder)")
        }
        #expect(try Command.run("spool-ctl", ["--spool", spool.path, "check"]).status == 0)
        let file = spool.path + "/new/" + spool.names("new")[0]
        chmod(file, 0o644)
        let loose = try Command.run("spool-ctl", ["--spool", spool.path, "check"])
        #expect(loose.status == 1)
        #expect(loose.stdout.contains(id) && loose.stdout.contains("readable or writable by group or others"))
    }
}
