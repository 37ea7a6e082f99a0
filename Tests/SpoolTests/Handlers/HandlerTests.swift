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

/// Handler jobs run as real processes: exit statuses, timeouts, order and the checks on the handler directory.
@Suite struct HandlerTests {
    @Test func jobsRunInOrderPerKeyEachExactlyOnce() throws {
        let spool = TemporarySpool(), fixture = HandlerFixture()
        // One printf: concurrent handlers append whole lines.
        fixture.script(
            "log", #"line="$SPOOL_ID $SPOOL_ATTEMPT $SPOOL_KEY $(cat) $# $1 $(pwd)"; printf '%s\n' "$line" >> WORK/log"#
        )
        var ids: [String: (key: Int, index: Int)] = [:]
        for i in 0..<100 {
            let id = try spool.enqueue(["--handler", "log", "--key", "k\(i % 10)", "--body", "\(i)", "--", "-x y"])
            ids[id] = (i % 10, i)
        }
        try spool.send(fixture.options + ["--concurrency", "4"])
        let lines = fixture.lines("log").map {
            $0.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        }
        #expect(lines.count == 100, "\(lines.prefix(3))")
        #expect(Set(lines.map { $0[0] }) == Set(ids.keys), "each job ran once")
        #expect(lines.allSatisfy { $0[1] == "1" && $0[4] == "1" && $0[5] == "-x" && $0[6] == "y" && $0[7] == "/" },
                "attempt 1, the one argument as given, run in /")
        for key in 0..<10 {
            let order = lines.filter { $0[2] == "k\(key)" }.map { Int($0[3])! }
            #expect(order == order.sorted() && order.count == 10, "key \(key) ran out of order: \(order)")
        }
        #expect(spool.names("new").isEmpty && spool.names("cur").isEmpty && spool.names("failed").isEmpty)
    }

    @Test func exitStatusesDecideTheOutcome() throws {
        let spool = TemporarySpool(), fixture = HandlerFixture()
        fixture.script("flaky", """
            n=$(cat WORK/count 2>/dev/null || echo 0); n=$((n + 1)); echo $n > WORK/count
            echo "$SPOOL_ATTEMPT" >> WORK/attempts
            if [ $n -le 2 ]; then echo "busy, try later ($n)" >&2; exit 75; fi
            """)
        let flaky = try spool.enqueue(["--handler", "flaky"])
        // --min-backoff 2 with equal jitter: 1–2 s after the first attempt, 2–4 s after the second.
        let options = fixture.options + ["--min-backoff", "2"]
        let firstRun = Timestamp.nowSeconds()
        try spool.send(options)
        let first = try #require(spool.waiting().first?.state)
        #expect(
            first.attempts == 1 && first.lastError == "tempfail" && first.dueSeconds >= firstRun + 1,
            "deferred with a backoff")
        while Timestamp.nowSeconds() < first.dueSeconds { usleep(100_000) }
        let secondRun = Timestamp.nowSeconds()
        try spool.send(options)
        let second = try #require(spool.waiting().first?.state)
        #expect(
            second.attempts == 2 && second.lastError == "tempfail" && second.dueSeconds >= secondRun + 2,
            "a longer backoff")
        while Timestamp.nowSeconds() < second.dueSeconds { usleep(100_000) }
        try spool.send(options)
        #expect(
            spool.names("new").isEmpty && fixture.lines("attempts") == ["1", "2", "3"], "\(flaky) done on its third run"
        )

        fixture.script("conflict", #"echo "theirs is v7, ours v6" >&2; exit 3"#)
        fixture.script("broken", #"echo "usage: broken FILE" >&2; exit 1"#)
        fixture.script("crash", #"kill -KILL $$"#)
        let conflict = try spool.enqueue(["--handler", "conflict"])
        let broken = try spool.enqueue(["--handler", "broken"])
        let crash = try spool.enqueue(["--handler", "crash"])
        try spool.send(options)
        #expect(spool.names("conflict") == [conflict, conflict + ".why"])
        let conflictWhy = spool.read("conflict", conflict + ".why")
        #expect(
            conflictWhy.contains("exit-status: 3") && conflictWhy.contains("stderr: theirs is v7, ours v6"),
            "\(conflictWhy)")
        #expect(spool.names("failed") == [broken, broken + ".why"])
        let brokenWhy = spool.read("failed", broken + ".why")
        #expect(brokenWhy.contains("exit-status: 1") && brokenWhy.contains("usage: broken FILE"), "\(brokenWhy)")
        let retried = try #require(spool.waiting().first)
        #expect(retried.id == crash && retried.state?.attempts == 1 && retried.state?.lastError == "signal")
    }

    @Test func aCleanEnvironmentNoDescriptorsAndLargeStreams() throws {
        let spool = TemporarySpool(), fixture = HandlerFixture()
        // Python, not sh: a shell keeps its script open on a descriptor of its own.
        let path = "\(fixture.handlers)/inspect"
        let script = """
            #!/usr/bin/python3
            import os, sys
            fds = sorted(int(fd) for fd in os.listdir("/proc/self/fd"))
            size = len(sys.stdin.buffer.read())
            sys.stdout.write("x" * 300000)
            with open("\(fixture.work)/seen", "w") as out:
                out.write("%d %s %s %s\\n" % (size, max(fds), os.getcwd(), os.environ["SPOOL_DROPPED_BY"]))
                for name in sorted(os.environ):
                    out.write(name + "\\n")
            sys.stderr.write("e" * 200000 + "\\nthe last line\\n")
            sys.exit(1)
            """
        writeExecutable(path, script)
        let body = String(repeating: "b", count: 300_000)
        let enqueued = try Command.run(
            "spool-enqueue", ["--spool", spool.path, "--handler", "inspect", "--body-file", "-"], stdin: Data(body.utf8)
        )
        let id = enqueued.stdout.trimmingCharacters(in: .newlines)
        try spool.send(fixture.options)
        let seen = fixture.lines("seen")
        #expect(
            seen.first == "300000 3 / \(geteuid())",
            "the whole body read, no descriptor beyond 0-2 (3: the listing's own), run in /, told who dropped it: \(seen)")
        // LC_CTYPE is Python's own: it sets it in a C locale (PEP 538).
        #expect(
            Array(seen.dropFirst()).filter { $0 != "LC_CTYPE" } == [
                "PATH", "SPOOL_ATTEMPT", "SPOOL_DIR", "SPOOL_DROPPED_BY", "SPOOL_HANDLER", "SPOOL_ID",
                "SPOOL_IDEMPOTENCY_KEY", "SPOOL_KEY"
            ])
        let why = spool.read("failed", id + ".why")
        #expect(
            why.contains("exit-status: 1") && why.contains("the last line") && why.utf8.count < 4096,
            "a handler that writes 500 KB is not blocked by its pipes, and its reason stays short: \(why.prefix(300))")
    }

    @Test func aHandlerPastItsTimeoutIsStoppedWithItsChildren() throws {
        let spool = TemporarySpool(), fixture = HandlerFixture()
        // A child that SIGTERM ends, then a handler deaf to it: SIGKILL after the grace period.
        fixture.script("slow", """
            echo $$ > WORK/leader
            sleep 60 & echo $! > WORK/child
            trap '' TERM
            sleep 60
            """)
        let id = try spool.enqueue(["--handler", "slow"])
        let started = Date()
        let result = try spool.send(fixture.options + ["--timeout", "1"])
        let took = Date().timeIntervalSince(started)
        let leader = try #require(Int32(fixture.lines("leader").first ?? ""))
        let child = try #require(Int32(fixture.lines("child").first ?? ""))
        let deadline = Date(timeIntervalSinceNow: 2)
        while !(processIsGone(leader) && processIsGone(child)), Date() < deadline { usleep(50_000) }
        #expect(processIsGone(leader) && processIsGone(child), "the handler and its child are gone")
        #expect(
            took >= 1 + HandlerProcess.graceSeconds - 0.5 && took < 1 + HandlerProcess.graceSeconds + 5,
            "stopped after the timeout and the grace period: \(took) s")
        let state = try #require(spool.waiting().first)
        #expect(state.id == id && state.state?.lastError == "timeout" && state.state?.attempts == 1, "\(result.stderr)")
    }

    @Test func hostileNamesAndFilesRunNothing() throws {
        let spool = TemporarySpool(), fixture = HandlerFixture()
        let canary = "touch WORK/canary"
        // Names that could reach outside the handler directory: the document itself is refused.
        let hostileNames = ["../handlers/good", "/bin/sh", "a/b", "..", ".hidden", "ca\\u0000nary", ""]
        for (i, name) in hostileNames.enumerated() {
            // Older than a producer could still be writing: refused at once.
            spool.drop("new", "bad-name-\(i)", #"{"handler": "\#(name)"}"#, modified: Date(timeIntervalSinceNow: -60))
        }
        fixture.script("good", canary)
        chmod(fixture.handlers + "/good", 0o644)  // not executable either
        fixture.script("group-writable", canary, mode: 0o775)
        fixture.script("world-writable", canary, mode: 0o757)
        symlink(fixture.script("target", canary, mode: 0o700), fixture.handlers + "/link")
        mkdir(fixture.handlers + "/folder", 0o755)
        let known = [
            "good": "not executable", "group-writable": "writable by group or others",
            "world-writable": "writable by group or others",
            "link": "is a symbolic link", "folder": "not a regular file", "missing": "does not exist"
        ]
        var files = known
        if geteuid() == 0 {
            // Another user's program: they could change it at will.
            chown(fixture.script("foreign", canary), 65534, 65534)
            files["foreign"] = "belongs to uid 65534"
        } else {
            print("skipped the foreign-owner case: it needs root to chown")
        }
        var ids: [String: String] = [:]
        for name in files.keys.sorted() { ids[name] = try spool.enqueue(["--handler", name, "--key", name]) }
        let result = try spool.send(fixture.options)
        #expect(!fixture.exists("canary"), "nothing was executed")
        for i in hostileNames.indices {
            let why = spool.read("failed", "bad-name-\(i).why")
            #expect(
                why.contains("field \"handler\"") && why.contains("must be a handler name"), "bad-name-\(i): \(why)")
        }
        for (name, reason) in files {
            let waiting = spool.waiting().first { $0.id == ids[name] }
            #expect(waiting?.state?.lastError == "handler", "\(name) waits")
            let line = result.stderr.split(separator: "\n").first {
                $0.contains("\(ids[name]!): handler \(fixture.handlers)/\(name) ")
            }
            #expect(line?.contains(reason) == true, "\(name): \(result.stderr)")
        }
        // A directory that others may write: nothing in it runs.
        fixture.script("fine", canary)
        chmod(fixture.handlers, 0o777)
        let open = try spool.enqueue(["--handler", "fine"])
        let second = try spool.send(fixture.options)
        #expect(
            !fixture.exists("canary")
                && second.stderr.contains("handler directory \(fixture.handlers) is writable by group or others"))
        #expect(spool.waiting().first { $0.id == open }?.state?.lastError == "handler")
        // And without a handler directory at all.
        let none = try spool.send(["--flush"])
        #expect(none.stderr.contains("no handler directory is set"))
    }

    @Test func enqueueListAndShowHandlerJobs() throws {
        let spool = TemporarySpool()
        let id = try spool.enqueue([
            "--handler", "mail", "--key", "mail:ops", "--body", "disk full", "--", "--to", "ops@example.com"
        ])
        let document = try JSON.parse(Array(spool.read("new", try #require(spool.names("new").first)).utf8))
        #expect(
            document["handler"] == .string("mail")
                && document["args"] == .array([.string("--to"), .string("ops@example.com")]))
        #expect(document["method"] == nil && document["url"] == nil)
        let list = try Command.run("spool-ctl", ["--spool", spool.path, "list"])
        #expect(
            list.stdout.contains("RUN") && list.stdout.contains("handler mail --to ops@example.com")
                && list.stdout.contains("mail:ops"), "\(list.stdout)")
        let show = try Command.run("spool-ctl", ["--spool", spool.path, "show", id])
        #expect(
            show.stdout.contains("job:") && show.stdout.contains("handler mail --to ops@example.com"), "\(show.stdout)")
        let json = try Command.run("spool-ctl", ["--spool", spool.path, "list", "--json"])
        #expect(json.stdout.contains(#""handler":"mail","args":["--to","ops@example.com"]"#), "\(json.stdout)")
        for (options, conflicting) in [
            (["--header", "A: b"], "--header"), (["--if-match", "x"], "--if-match"), (["--auth", "p"], "--auth")
        ] {
            let refused = try Command.run("spool-enqueue", ["--spool", spool.path, "--handler", "mail"] + options)
            #expect(refused.status == 64 && refused.stderr.contains(conflicting), "\(refused.stderr)")
        }
        let hostile = try Command.run("spool-enqueue", ["--spool", spool.path, "--handler", "../bin/sh"])
        #expect(hostile.status == 65 && hostile.stderr.contains("\"handler\""), "\(hostile.stderr)")
    }

    /// Whether this kernel refuses to run a program someone holds open for writing (ETXTBSY), as Linux has
    /// long done; 6.11 for a while did not.
    static let programsOpenForWritingAreRefused: Bool = {
        let fixture = HandlerFixture()
        let path = fixture.script("probe", "exit 0")
        let writer = open(path, O_WRONLY | O_CLOEXEC)
        defer { close(writer) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        do {
            try process.run()
            process.waitUntilExit()
            return false
        } catch {
            return true
        }
    }()

    @Test(.enabled(if: programsOpenForWritingAreRefused, "this kernel runs a program while it is open for writing"))
    func aHandlerStillOpenForWritingWaitsAndRunsOnceItIsClosed() throws {
        let spool = TemporarySpool(), fixture = HandlerFixture()
        let path = fixture.script("deploy", "touch WORK/ran")
        // An admin's `cp` of a new version, still writing: Linux refuses to run it (ETXTBSY).
        let writer = open(path, O_WRONLY | O_CLOEXEC)
        #expect(writer >= 0)
        let id = try spool.enqueue(["--handler", "deploy"])
        let busy = try spool.send(fixture.options)
        close(writer)
        #expect(!fixture.exists("ran"))
        #expect(spool.waiting().first { $0.id == id }?.state?.lastError == "handler", "it waits, not filed")
        #expect(busy.stderr.contains("cannot start handler \(path)"), "\(busy.stderr)")
        try spool.send(fixture.options + ["--flush"])
        #expect(fixture.exists("ran") && spool.names("new").isEmpty && spool.names("failed").isEmpty)
    }

    @Test func aHandlerThatCannotRunStopsItsJobsForTheRun() throws {
        let spool = TemporarySpool(), fixture = HandlerFixture()
        let first = try spool.enqueue(["--handler", "absent", "--key", "a"])
        let second = try spool.enqueue(["--handler", "absent", "--key", "b"])
        try spool.send(fixture.options + ["--concurrency", "1"])
        let states = Dictionary(uniqueKeysWithValues: spool.waiting().map { ($0.id, $0.state!) })
        #expect(
            states[first]?.attempts == 1 && states[second]?.attempts == 0, "the second job of the handler was not tried"
        )
    }
}
