import Foundation
import Glibc
import SpoolTestSupport
import Testing

/// `spool-enqueue --batch`: many writes made durable together, every line checked first, ids in input order.
@Suite struct EnqueueBatchTests {
    /// A batch of `count` PUTs, `keys` ordering keys taken in turn, each body naming its line.
    static func lines(_ count: Int, keys: Int, base: String) -> String {
        (0..<count).map { line in
            #"{"method":"PUT","url":"\#(base)/notes/\#(line % keys)","body":"line \#(line)"}"#
        }.joined(separator: "\n") + "\n"
    }

    @Test func aBatchQueuesEveryLineAndIsSentInInputOrderPerKey() throws {
        let spool = TemporarySpool()
        let server = try TestServer { _ in .respond(204, [:], "") }
        defer { server.stop() }
        let batch = Self.lines(200, keys: 3, base: server.baseURL)
        let queued = try Command.run("spool-enqueue", ["--spool", spool.path, "--batch", "-"], stdin: Data(batch.utf8))
        #expect(queued.status == 0, "\(queued.stderr)")
        let ids = queued.lines
        #expect(ids.count == 200 && Set(ids).count == 200, "one id per line: \(ids.count)")
        let waiting = spool.names("new")
        #expect(ids.allSatisfy { id in waiting.contains { $0.hasPrefix(id + ":") } }, "every printed id is in new/")
        #expect(spool.names("tmp").isEmpty, "nothing left in tmp/")
        let sent = try spool.send()
        #expect(sent.status == 0, "\(sent.stderr)")
        for key in 0..<3 {
            let bodies = server.requests.filter { $0.path == "/notes/\(key)" }.map(\.text)
            #expect(bodies == stride(from: key, to: 200, by: 3).map { "line \($0)" }, "key \(key) in input order")
        }
    }

    @Test(arguments: [
        (#"{"method":"PUT","url":"http://127.0.0.1:9/a""#, "line 3", "not valid JSON"),
        (#"{"method":"PUT"}"#, "line 3", "url"),
        (#"{"method":"PUT","url":"http://127.0.0.1:9/a","payload":true}"#, "line 3", "payload"),
    ])
    func aBadLineQueuesNothingAndIsNamedByItsNumber(bad: String, names: String, why: String) throws {
        let spool = TemporarySpool()
        let good = #"{"method":"PUT","url":"http://127.0.0.1:9/a","body":"x"}"#
        let batch = [good, "", bad, good].joined(separator: "\n")
        let queued = try Command.run("spool-enqueue", ["--spool", spool.path, "--batch", "-"], stdin: Data(batch.utf8))
        #expect(queued.status == 65 && queued.stdout.isEmpty, "\(queued.status) \(queued.stdout)")
        #expect(queued.stderr.contains("standard input \(names)") && queued.stderr.contains(why), "\(queued.stderr)")
        #expect(spool.names("new").isEmpty && spool.names("tmp").isEmpty, "nothing of the batch is queued")
    }

    @Test func aSpoolTooFullForTheWholeBatchRefusesIt() throws {
        let spool = TemporarySpool()
        let batch = Self.lines(10, keys: 10, base: "http://127.0.0.1:9")
        _ = try spool.enqueue(["PUT", "http://127.0.0.1:9/before"])
        let full = try Command.run(
            "spool-enqueue", ["--spool", spool.path, "--max-queue", "10", "--batch", "-"], stdin: Data(batch.utf8))
        #expect(full.status == 75 && full.stderr.contains("the limit is 10 (--max-queue)"), "\(full.status) \(full.stderr)")
        // Larger than the queue may ever hold: retrying cannot help, so it is bad input, with the way out.
        let tooLarge = try Command.run(
            "spool-enqueue", ["--spool", spool.path, "--max-queue", "5", "--batch", "-"], stdin: Data(batch.utf8))
        #expect(tooLarge.status == 65 && tooLarge.stderr.contains("split it into batches of at most 5"),
                "\(tooLarge.status) \(tooLarge.stderr)")
        #expect(spool.names("new").count == 1 && spool.names("tmp").isEmpty)
    }

    /// A merge line folds into the create before it in the same batch, and a DELETE of that create cancels
    /// both: the lines print the create's id, the same id, and an empty line; nothing is left to send.
    @Test func mergeAndDeleteLinesFoldAsTheyWouldAlone() throws {
        let spool = TemporarySpool()
        let url = "http://127.0.0.1:9/notes/1"
        let batch = [
            #"{"method":"PUT","url":"\#(url)","body":{"a":1},"creates":true}"#,
            #"{"method":"PATCH","url":"\#(url)","body":{"b":2},"merge":true}"#,
            #"{"method":"PUT","url":"http://127.0.0.1:9/other","body":"kept"}"#,
            #"{"method":"DELETE","url":"\#(url)"}"#,
        ].joined(separator: "\n")
        let queued = try Command.run("spool-enqueue", ["--spool", spool.path, "--batch", "-"], stdin: Data(batch.utf8))
        #expect(queued.status == 0, "\(queued.stderr)")
        let printed = queued.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(printed.count == 5 && printed[0] == printed[1] && printed[3].isEmpty && printed[4].isEmpty,
                "\(printed)")
        #expect(queued.stderr.contains("merged into") && queued.stderr.contains("cancelled"), "\(queued.stderr)")
        let left = spool.names("new")
        #expect(left.count == 1 && left[0].hasPrefix(printed[2] + ":"), "only the other write is left: \(left)")
    }

    /// What strace sees a batch do: one `syncfs` before the first rename into `new/`, every rename, then one
    /// fsync (of `new/`) after the last: the group commit's order, so that no name appears before its file is
    /// on disk and none is lost to a power cut once the ids are printed.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/strace"), "needs strace"))
    func aBatchSyncsOnceBeforeItsRenamesAndOnceAfter() throws {
        let spool = TemporarySpool()
        _ = try spool.open()
        let trace = spool.directory + "/trace"
        let batch = Self.lines(5, keys: 5, base: "http://127.0.0.1:9")
        let traced = try Command.run("/usr/bin/strace", [
            "-f", "-qq", "-o", trace, "-e", "trace=syncfs,fsync,fdatasync,rename,renameat,renameat2",
            Command.path("spool-enqueue"), "--spool", spool.path, "--batch", "-",
        ], environment: Sanitizer.withoutLeakCheck, stdin: Data(batch.utf8))
        #expect(traced.status == 0 && traced.lines.count == 5, "\(traced.stderr)")
        let calls = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
            .filter { !$0.contains("resumed") && !$0.contains("= -1") }
        let renames = calls.indices.filter { calls[$0].contains("rename") }
        let syncs = calls.indices.filter { calls[$0].contains("syncfs(") }
        try #require(renames.count == 5, "five renames into new/: \(calls)")
        #expect(syncs.count == 1 && syncs[0] < renames[0], "one syncfs, before the first rename: \(calls)")
        #expect(calls[(renames[4] + 1)...].contains { $0.contains("fsync(") }, "an fsync after the last: \(calls)")
        #expect(!calls[..<renames[4]].contains { $0.contains("fsync(") }, "no fsync per file: \(calls)")
    }

    /// `kill -9` at random points of a 10,000-line batch, fifty times: every file in `new/` is a whole
    /// document, and every id printed (a whole line) is in `new/`. Each round picks its point: once a random
    /// number of files is written in `tmp/`, or once a random number is renamed into `new/`. On tmpfs
    /// (`/dev/shm`): a killed process loses nothing the kernel holds, so what is torn or not is the same on
    /// any file system, and fifty rounds of ten thousand files take seconds there instead of minutes on a
    /// busy disk.
    @Test(.enabled(if: FileManager.default.isWritableFile(atPath: "/dev/shm"), "needs /dev/shm"))
    func aKilledBatchLeavesNoTornFile() throws {
        let work = makeTemporaryDirectory("spool-batch")
        defer { _ = try? FileManager.default.removeItem(atPath: work) }
        let batchFile = work + "/batch.jsonl"
        try Self.lines(10_000, keys: 50, base: "http://127.0.0.1:9").write(
            toFile: batchFile, atomically: true, encoding: .utf8)
        let shm = makeTemporaryDirectory("spool-batch", in: "/dev/shm")
        defer { _ = try? FileManager.default.removeItem(atPath: shm) }
        var killed = 0
        for round in 0..<50 {
            let spool = "\(shm)/round\(round)"
            let folder = Bool.random() ? "tmp" : "new", count = Int.random(in: 1...10_000)
            let (process, out, _) = try Command.start("spool-enqueue", ["--spool", spool, "--batch", batchFile])
            let reached = eventually(within: 60, every: 0.001) {
                !process.isRunning || Self.entries(in: "\(spool)/\(folder)") >= count
            }
            #expect(reached, "round \(round): \(count) files in \(folder)/, or the batch ended")
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            if process.terminationReason == .uncaughtSignal { killed += 1 }
            // A line is printed once its newline is: the last, cut by the kill, is not.
            var printed = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            printed.removeLast()
            let waiting = (try? FileManager.default.contentsOfDirectory(atPath: spool + "/new")) ?? []
            var torn: [String] = []
            for name in waiting where !name.hasPrefix(".") {
                let data = FileManager.default.contents(atPath: "\(spool)/new/\(name)") ?? Data()
                if data.last != UInt8(ascii: "\n") || (try? JSONSerialization.jsonObject(with: data)) == nil {
                    torn.append(name)
                }
            }
            #expect(torn.isEmpty, "round \(round): torn files in new/: \(torn.prefix(3))")
            let ids = Set(waiting.map { String($0.prefix { $0 != ":" }) })
            let missing = printed.filter { !ids.contains($0) }
            #expect(missing.isEmpty, "round \(round): printed but not in new/: \(missing.prefix(3))")
            try? FileManager.default.removeItem(atPath: spool)
        }
        #expect(killed >= 25, "most rounds were killed mid-batch: \(killed) of 50")
    }

    /// The entries of a folder, hidden ones too: on tmpfs a directory's size is 20 bytes an entry, which
    /// spares a listing of ten thousand names every millisecond.
    static func entries(in folder: String) -> Int {
        var status = stat()
        guard stat(folder, &status) == 0 else { return 0 }
        return max(0, Int(status.st_size) / 20 - 2)
    }
}
