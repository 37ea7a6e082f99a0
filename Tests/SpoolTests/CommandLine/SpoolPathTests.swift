import Foundation
import Testing

/// A mistyped spool path is an error, not a new empty spool: only producers and `spool-ctl init` make one.
@Suite struct SpoolPathTests {
    @Test func readersAndTheSenderRefuseAPathThatIsNoSpool() throws {
        let temporary = TemporarySpool()
        let typo = temporary.directory + "/outbx"
        for arguments in [["list"], ["stats"], ["show", "some-id"], ["check"], ["retry", "--now"]] {
            let result = try Command.run("spool-ctl", ["--spool", typo] + arguments)
            #expect(result.status == 66, "\(arguments): \(result.stderr)")
            #expect(
                result.stderr.contains("spool-ctl: error: no spool at \(typo)")
                    && result.stderr.contains("spool-ctl --spool \(typo) init"), "\(result.stderr)")
        }
        for mode in ["--once", "--watch"] {
            let send = try Command.run("spool-send", ["--spool", typo, mode], timeout: 20)
            #expect(send.status == 66, "\(mode) from cron fails every run: \(send.stderr)")
            #expect(send.stderr.contains("no spool at \(typo)"))
        }
        #expect(!FileManager.default.fileExists(atPath: typo), "nothing was created")

        // A directory that is not a spool (no new/) is refused the same way, and left as it is.
        try FileManager.default.createDirectory(atPath: typo, withIntermediateDirectories: false)
        let half = try Command.run("spool-send", ["--spool", typo, "--once"])
        #expect(half.status == 66 && half.stderr.contains("is not a spool (it has no tmp/)"), "\(half.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: typo).isEmpty)

        // A regular file is no spool either: the same status from every program.
        let file = temporary.directory + "/file"
        #expect(FileManager.default.createFile(atPath: file, contents: Data("x".utf8)))
        for (program, arguments) in [("spool-send", ["--once"]), ("spool-ctl", ["list"]),
                                     ("spool-enqueue", ["PUT", "http://127.0.0.1:9/a"])] {
            let run = try Command.run(program, ["--spool", file] + arguments)
            #expect(run.status == 66 && run.stderr.contains("\(file) exists but is not a directory"),
                    "\(program): \(run.status) \(run.stderr)")
        }
    }

    @Test func initAndProducersCreateTheSpool() throws {
        let temporary = TemporarySpool()
        let fresh = temporary.directory + "/outbox"
        let made = try Command.run("spool-ctl", ["--spool", fresh, "init"])
        #expect(made.status == 0 && made.stdout == "\(fresh): spool created\n", "\(made.stderr)")
        for folder in ["tmp", "new", "cur", "failed", "conflict"] {
            var status = stat()
            #expect(
                stat("\(fresh)/\(folder)", &status) == 0 && status.st_mode & 0o777 == 0o700,
                "\(folder)/ is there, mode 0700")
        }
        let again = try Command.run("spool-ctl", ["--spool", fresh, "init"])
        #expect(again.status == 0 && again.stdout == "\(fresh): already a spool\n")
        #expect(try Command.run("spool-ctl", ["--spool", fresh, "list"]).status == 0)
        #expect(try Command.run("spool-send", ["--spool", fresh, "--once"]).status == 0)
        #expect(try Command.run("spool-ctl", ["--spool", fresh, "init", "extra"]).status == 64)

        let produced = temporary.directory + "/produced"
        let enqueue = try Command.run("spool-enqueue", ["--spool", produced, "PUT", "http://127.0.0.1:9/x"])
        #expect(enqueue.status == 0, "a producer makes its spool: \(enqueue.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: produced + "/new").count == 1)
    }

    /// The launchers keep the programs' own rule: `--spool`, else `$SPOOL_DIR`, else `./spool` where they run.
    @Test func launchersUseTheSpoolOfTheCurrentDirectory() throws {
        let temporary = TemporarySpool()
        let launcher = try String(contentsOfFile: Repository.root + "/bin/launcher", encoding: .utf8)
        #expect(!launcher.contains("SPOOL_DIR="), "the launcher sets no spool of its own")
        let id = try Command.run(
            "spool-enqueue", ["PUT", "http://127.0.0.1:9/here"], workingDirectory: temporary.directory)
        #expect(id.status == 0, "\(id.stderr)")
        #expect(temporary.names("new").count == 1, "./spool is the spool of the directory the program runs in")
        let elsewhere = try Command.run("spool-ctl", ["list"], workingDirectory: "/")
        #expect(elsewhere.status == 66 && elsewhere.stderr.contains("no spool at spool"), "\(elsewhere.stderr)")
    }

    /// The silences a new user meets: a producer that makes a spool says so, once, naming it; `init` under a
    /// missing parent names the parent; a mistyped long option is answered with the nearest one.
    @Test func firstStepsAreSaid() throws {
        let temporary = TemporarySpool()
        let made = temporary.directory + "/outbox"
        let first = try Command.run("spool-enqueue", ["--spool", made, "PUT", "http://127.0.0.1:9/a"])
        #expect(first.status == 0 && first.stderr == "spool-enqueue: created the spool \(made); spool-send sends "
            + "from it with --spool \(made)\n", "\(first.stderr)")
        let second = try Command.run("spool-enqueue", ["--spool", made, "PUT", "http://127.0.0.1:9/b"])
        #expect(second.status == 0 && second.stderr.isEmpty, "said once: \(second.stderr)")
        let deep = temporary.directory + "/missing/spool"
        let initialized = try Command.run("spool-ctl", ["--spool", deep, "init"])
        #expect(initialized.status == 73 && initialized.stderr.contains(
            "cannot create \(deep): its parent \(temporary.directory)/missing does not exist"), "\(initialized.stderr)")
        for (program, arguments, near) in [
            ("spool-send", ["--concurency", "4"], "--concurrency"),
            ("spool-enqueue", ["--idempotencykey", "k", "PUT", "http://127.0.0.1:9/a"], "--idempotency-key"),
            ("spool-ctl", ["list", "--olderthan", "1h"], "--older-than"),
        ] {
            let run = try Command.run(program, ["--spool", temporary.path] + arguments)
            #expect(run.status == 64 && run.stderr.contains("unknown option '\(arguments[arguments.firstIndex { $0.hasPrefix("--") && $0 != "--spool" }!])'; did you mean '\(near)'?"),
                    "\(program): \(run.stderr)")
        }
        let far = try Command.run("spool-send", ["--spool", temporary.path, "--xyz"])
        #expect(far.status == 64 && far.stderr.contains("unknown option '--xyz'\n"), "no guess when none is near")
    }

    /// An empty listing on a terminal says so, as mailq does; piped, it prints nothing for a script to parse.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "needs script(1) for a tty"))
    func anEmptyListOnATerminalSaysSo() throws {
        let spool = TemporarySpool()
        let list = Command.path("spool-ctl") + " --spool " + spool.path + " list"
        let all = try Command.run("/usr/bin/script", ["-qec", list, "/dev/null"])
        #expect(all.stdout.contains("the spool is empty"), "\(all.stdout)")
        let failed = try Command.run("/usr/bin/script", ["-qec", list + " failed", "/dev/null"])
        #expect(failed.stdout.contains("no operation in failed/"), "\(failed.stdout)")
        let piped = try Command.run("spool-ctl", ["--spool", spool.path, "list"])
        #expect(piped.status == 0 && piped.stdout.isEmpty, "\(piped.stdout)")
    }
}
