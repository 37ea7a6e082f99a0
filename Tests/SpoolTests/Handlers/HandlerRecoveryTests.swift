import Foundation
import Glibc
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


/// Handler jobs across a worker's death and a watcher's wake-up: none lost, none outliving its worker, each run
/// again after recovery.
@Suite struct HandlerRecoveryTests {
    @Test func killedWorkersLoseNoJob() throws {
        let spool = TemporarySpool(), fixture = HandlerFixture()
        fixture.script("slowlog", #"sleep 0.05; line="$SPOOL_ID $SPOOL_ATTEMPT"; printf '%s\n' "$line" >> WORK/log"#)
        let library = try spool.open()
        var ids: Set<String> = []
        for i in 0..<600 {
            let document = JSON.object([
                ("handler", .string("slowlog")), ("key", .string("k\(i % 8)")), ("body", .string("\(i)"))
            ])
            ids.insert(try library.enqueue(try Operation(document: document)))
        }
        var kills = 0
        while kills < 50, !spool.names("new").isEmpty {
            // Killed after a random few jobs of its own have run (a condition, with a deadline), so that every
            // kill lands mid-run, among handlers still going.
            let logged = fixture.lines("log").count, wanted = logged + Int.random(in: 1...6)
            let (process, _, _) = try Command.start(
                "spool-send", ["--spool", spool.path, "--once", "--concurrency", "4"] + fixture.options)
            let deadline = Date().addingTimeInterval(10)
            while process.isRunning, fixture.lines("log").count < wanted, Date() < deadline { usleep(2_000) }
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                kills += 1
            }
            process.waitUntilExit()
        }
        var runs = 0
        while !(spool.names("new").isEmpty && spool.names("cur").isEmpty), runs < 10 {
            try spool.send(fixture.options + ["--flush", "--concurrency", "4"])
            runs += 1
        }
        // A killed run's handler goes with it (parent-death signal): wait until none is left, so nothing more is
        // written while the log is read.
        let deadline = Date().addingTimeInterval(10)
        while Mounts.run(["pgrep", "-f", fixture.handlers + "/slowlog"]) == 0, Date() < deadline { usleep(20_000) }
        #expect(Mounts.run(["pgrep", "-f", fixture.handlers + "/slowlog"]) == 1, "no handler outlives its worker")
        let ran = fixture.lines("log").map { String($0.split(separator: " ")[0]) }
        print(
            "handler crash test: \(ids.count) jobs, \(kills) kills, \(ran.count) runs, \(ran.count - Set(ran).count) "
                + "run again"
        )
        #expect(kills == 50)
        #expect(Set(ran) == ids, "every job ran at least once")
        #expect(spool.names("new").isEmpty && spool.names("cur").isEmpty && spool.names("failed").isEmpty)
    }

    @Test func aHandlerDiesWithItsWorkerAndRunsAgainAfterRecovery() throws {
        let spool = TemporarySpool(), fixture = HandlerFixture()
        fixture.script("long", #"echo $$ >> WORK/pids; sleep 30; echo done >> WORK/done"#)
        let id = try spool.enqueue(["--handler", "long", "--key", "k"])
        let after = try spool.enqueue(["--handler", "long", "--key", "k"])
        let (worker, _, _) = try Command.start("spool-send", ["--spool", spool.path, "--once"] + fixture.options)
        let deadline = Date(timeIntervalSinceNow: 10)
        while fixture.lines("pids").isEmpty, Date() < deadline { usleep(20_000) }
        let handler = try #require(Int32(fixture.lines("pids").first ?? ""))
        kill(worker.processIdentifier, SIGKILL)
        worker.waitUntilExit()
        let gone = Date(timeIntervalSinceNow: 2)
        while !processIsGone(handler), Date() < gone { usleep(20_000) }
        #expect(processIsGone(handler), "the handler does not run on beside the run that recovers its job")
        #expect(spool.names("cur").count == 1, "its claim stays until recovery")
        // Recovery runs it again (and the key's next job only after it): here, stopped at --timeout.
        let rerun = try spool.send(fixture.options + ["--timeout", "1"])
        #expect(fixture.lines("pids").count == 2 && spool.names("cur").isEmpty, "\(rerun.stderr)")
        #expect(spool.waiting().map(\.id) == [id, after] && spool.waiting().first?.state?.lastError == "timeout")
        #expect(!fixture.exists("done"))
    }

    @Test func aWatcherRunsADroppedJobWithinASecond() throws {
        let spool = TemporarySpool(), fixture = HandlerFixture()
        fixture.script("mark", #"printf '%s\n' "$SPOOL_ID" >> WORK/log"#)
        let (watcher, _, errPipe) = try Command.start(
            "spool-send", ["--spool", spool.path, "--watch", "-v"] + fixture.options)
        defer {
            kill(watcher.processIdentifier, SIGTERM)
            watcher.waitUntilExit()
        }
        let err = OutputWatcher(errPipe)
        #expect(err.wait(for: "watching \(spool.path)/new"), "the watcher said it is watching: \(err.text)")
        spool.drop("tmp", "job-1", #"{"handler": "mark", "body": "hello"}"#)
        let dropped = Date()
        #expect(rename("\(spool.path)/tmp/job-1", "\(spool.path)/new/job-1") == 0)
        while fixture.lines("log").isEmpty, Date().timeIntervalSince(dropped) < 5 { usleep(10_000) }
        let latency = Date().timeIntervalSince(dropped)
        #expect(fixture.lines("log") == ["job-1"])
        #expect(latency < 1, "picked up after \(latency) s")
    }
}
