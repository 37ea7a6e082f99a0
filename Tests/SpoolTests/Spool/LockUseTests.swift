import Foundation
import Glibc
import SpoolTestSupport
import Testing
@testable import Spool
@testable import SpoolSystem
@testable import SpoolQueue

/// The spool lock is held for listings and renames only: a dropped document is read, and a deferral or a
/// filing flushed to disk, after it is let go (strace of real runs); and `-v` says how long a run held it.
@Suite struct LockUseTests {
    @Test func theUseIsCountedAndSaidInMilliseconds() {
        var use = LockUse()
        use.add(waited: 1_000, held: 40_000)
        use.add(waited: 0, held: 1_234_567)
        #expect(use.takes == 2 && use.waitedNanoseconds == 1_000 && use.heldNanoseconds == 1_274_567)
        #expect(use.longestHeldNanoseconds == 1_234_567)
        #expect(use.line == "spool lock taken 2 times, held 1.27 ms (longest 1.23 ms), waited 0.00 ms")
        #expect(LockUse.milliseconds(1_005_000) == "1.01 ms" && LockUse.milliseconds(0) == "0.00 ms")
    }

    @Test func aRunSaysHowLongItHeldTheLock() throws {
        let spool = TemporarySpool()
        let server = try TestServer { _ in .respond(204, [:], "") }
        defer { server.stop() }
        for index in 0..<3 { try spool.enqueue(["PUT", server.baseURL + "/item/\(index)", "--body", "b"]) }
        let run = try spool.send(["-v"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(server.requests.count == 3)
        // One listing and three claims at least; a retire takes no lock.
        let line = try #require(run.stderr.split(separator: "\n").first { $0.contains("3 sent: 3 done") })
        let taken = try #require(line.firstMatch(of: /spool lock taken (\d+) times, held [0-9]+\.[0-9]{2} ms/))
        #expect(Int(taken.1)! >= 4, "\(line)")
        #expect(line.contains(/\(longest [0-9]+\.[0-9]{2} ms\), waited [0-9]+\.[0-9]{2} ms$/), "\(line)")
    }
}

/// The same, seen by strace: nothing between a thread's `flock(LOCK_EX)` and its `flock(LOCK_UN)` opens a
/// dropped document or flushes anything to disk, in a worker or in `spool-ctl retry`.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/strace"), "needs strace; .ci/run installs it"))
struct LockHoldTraceTests {
    @Test func droppedDocumentsAreReadAndRejectedOnesFiledOutsideTheLock() throws {
        let spool = TemporarySpool()
        let server = try TestServer { _ in .respond(204, [:], "") }
        defer { server.stop() }
        for index in 0..<20 {
            spool.drop("new", "dropped\(index)", #"{"method":"PUT","url":"\#(server.baseURL)/d/\#(index)","body":"b"}"#)
        }
        // Past the settling time, so that it is filed at once (with its fsyncs).
        spool.drop("new", "dropped-bad", #"{"method":"PUT"}"#, modified: Date(timeIntervalSinceNow: -60))
        // A queue name with a claim, which only cur/ may hold: filed as a bad name, as the dropped files are.
        let claimed = try spool.enqueue(["PUT", server.baseURL + "/claimed", "--body", "c"])
        let waiting = try #require(spool.names("new").first { $0.hasPrefix(claimed + ":") })
        #expect(rename(spool.path + "/new/" + waiting, spool.path + "/new/" + waiting + "@elsewhere,1,2,3") == 0)
        let trace = try traced(spool, ["-f", "-qq", "-y", "-e", "trace=flock,openat,fsync,fdatasync"])
        #expect(server.requests.count == 20)
        let failed = spool.operations("failed")
        #expect(failed.count == 2 && failed.contains("dropped-bad") && failed.contains { $0.hasPrefix(claimed) },
                "\(failed)")
        #expect(trace.takes >= 21, "a listing and a claim each at least")
        #expect(trace.opened(matching: /"dropped\d+"/) >= 20, "the documents were read: the check below is not empty")
        #expect(trace.flushes(of: "failed") >= 1, "the filing flushed failed/: the check below is not empty")
        #expect(trace.insideTheLock.isEmpty, "under the lock: \(trace.insideTheLock.prefix(4))")
    }

    @Test func aDeferralIsFlushedOutsideTheLock() throws {
        let spool = TemporarySpool()
        let server = try TestServer { _ in .respond(503, [:], "busy") }
        defer { server.stop() }
        for index in 0..<3 { try spool.enqueue(["PUT", server.baseURL + "/item/\(index)", "--body", "b"]) }
        // One sending thread: with two, whether a second lane claims before the first 503 holds the origin
        // back is a race, and with it the number of deferrals the check below counts on.
        let trace = try traced(
            spool, ["-f", "-qq", "-y", "-e", "trace=flock,openat,fsync,fdatasync"], "spool-send", ["--once", "--threads", "1"])
        #expect(server.requests.count >= 1)
        #expect(spool.operations("new").count == 3 && spool.operations("cur").isEmpty)
        #expect(trace.flushes(of: "new") >= 3, "each deferral flushed new/: the check below is not empty")
        #expect(trace.insideTheLock.isEmpty, "under the lock: \(trace.insideTheLock.prefix(4))")
    }

    @Test func aRetriedFilingIsFlushedOutsideTheLock() throws {
        let spool = TemporarySpool()
        let server = try TestServer { _ in .respond(400, [:], "no") }
        defer { server.stop() }
        for index in 0..<3 { try spool.enqueue(["PUT", server.baseURL + "/item/\(index)", "--body", "b"]) }
        #expect(try spool.send().status == 0)
        #expect(spool.operations("failed").count == 3)
        let trace = try traced(
            spool, ["-f", "-qq", "-y", "-e", "trace=flock,fsync,fdatasync"], "spool-ctl", ["retry", "--all-failed"])
        #expect(spool.operations("new").count == 3 && spool.operations("failed").isEmpty)
        #expect(trace.takes >= 3 && trace.flushes(of: "new") >= 3, "each return flushed new/: the check is not empty")
        #expect(trace.insideTheLock.isEmpty, "under the lock: \(trace.insideTheLock.prefix(4))")
    }

    /// A run of `program` (`spool-send --once` by default) under strace with `options`, its trace read.
    private func traced(
        _ spool: TemporarySpool, _ options: [String], _ program: String = "spool-send", _ arguments: [String] = ["--once"]
    ) throws -> LockTrace {
        let file = spool.directory + "/trace"
        let run = try Command.run(
            "/usr/bin/strace", options + ["-o", file, Command.path(program), "--spool", spool.path] + arguments,
            environment: Sanitizer.withoutLeakCheck)
        #expect(run.status == 0, "\(run.stderr)")
        return LockTrace(try String(contentsOfFile: file, encoding: .utf8))
    }
}

/// An strace log of one process tree, read per thread: which calls came while the thread held the spool lock.
struct LockTrace {
    /// Times the lock was let go.
    var takes = 0
    /// `fsync` and `fdatasync` lines, with the path of what they flushed (strace `-y`).
    var flushLines: [Substring] = []
    /// Every `openat` line, to count documents opened.
    var opens: [Substring] = []
    /// The calls other than `flock` that a thread made between its `LOCK_EX` and its `LOCK_UN`, flushes and
    /// opens of dropped documents only (the claim's and admission's renames are not traced).
    var insideTheLock: [Substring] = []

    init(_ text: String) {
        var holding = Set<Substring>()
        for line in text.split(separator: "\n") {
            let thread = line.prefix { $0 != " " }
            if line.contains("flock(") || line.contains("<... flock resumed>") {
                // Counted from the call, not its return: stricter.
                if line.contains("LOCK_EX") { holding.insert(thread) }
                if line.contains("LOCK_UN") {
                    holding.remove(thread)
                    takes += 1
                }
                continue
            }
            let flush = line.contains("fsync(") || line.contains("fdatasync(")
            if flush { flushLines.append(line) }
            if line.contains("openat(") { opens.append(line) }
            let readsDropped = line.contains("openat(") && line.contains(/"dropped[^"]*"/)
            if holding.contains(thread), flush || readsDropped { insideTheLock.append(line) }
        }
    }

    /// How many flushes were of the spool folder `folder` itself.
    func flushes(of folder: String) -> Int { flushLines.filter { $0.contains("/spool/\(folder)>") }.count }

    /// How many `openat` lines match `pattern`.
    func opened(matching pattern: Regex<Substring>) -> Int { opens.filter { $0.contains(pattern) }.count }
}
