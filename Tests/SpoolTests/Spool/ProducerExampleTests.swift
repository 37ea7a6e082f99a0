import Foundation
import Glibc
import SpoolTestSupport
import Testing

/// The producers of `examples/producers/`, one per language, run with Debian's interpreters and compiler:
/// each drops a write that spool-send delivers byte for byte, and none, killed while it writes, leaves half a
/// file in `new/`.
@Suite struct ProducerExampleTests {
    /// One example: its file and the program that runs it (nil: a compiled one).
    struct Example: CustomStringConvertible, Sendable {
        let file: String
        let interpreter: String?
        var description: String { file }
    }

    static let examples = [
        Example(file: "spool-drop.py", interpreter: "/usr/bin/python3"),
        Example(file: "spool-drop.pl", interpreter: "/usr/bin/perl"),
        Example(file: "spool-drop.rb", interpreter: "/usr/bin/ruby"),
        Example(file: "spool-drop.js", interpreter: "/usr/bin/node"),
        Example(file: "spool-drop.php", interpreter: "/usr/bin/php"),
        Example(file: "spool-drop.sh", interpreter: "/bin/sh"),
        Example(file: "spool-drop.go", interpreter: nil),
    ]

    /// A body a careless producer gets wrong: quotes, a backslash, a tab, a line end, a letter beyond ASCII.
    static let body = "He said \"hi\" \\ é\tdone\nnext line\n"

    /// The command that runs `example` (building a Go one first, once), or nil when its program is missing.
    static func command(_ example: Example) -> [String]? {
        let source = "\(Repository.root)/examples/producers/\(example.file)"
        if let interpreter = example.interpreter {
            return FileManager.default.isExecutableFile(atPath: interpreter) ? [interpreter, source] : nil
        }
        return goBinary.map { [$0] }
    }

    /// The Go example built once per test run; nil without Debian's golang-go.
    static let goBinary: String? = {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/go") else { return nil }
        let output = makeTemporaryDirectory("spool-go") + "/spool-drop"
        let built = try? Command.run(
            "/usr/bin/go", ["build", "-o", output, "\(Repository.root)/examples/producers/spool-drop.go"],
            timeout: 600)
        return built?.status == 0 ? output : nil
    }()

    /// The interpreters and compiler not installed (`.ci/run` installs them all).
    static let missing = ["/usr/bin/python3", "/usr/bin/perl", "/usr/bin/ruby", "/usr/bin/node", "/usr/bin/php",
                          "/usr/bin/go"].filter { !FileManager.default.isExecutableFile(atPath: $0) }

    @Test(.enabled(if: missing.isEmpty, "needs \(missing.joined(separator: ", "))"), arguments: examples)
    func aDroppedWriteIsDeliveredByteForByte(_ example: Example) throws {
        let command = try #require(Self.command(example), "\(example) can run (a Go one builds)")
        let spool = TemporarySpool()
        _ = try spool.open()
        let server = try TestServer { _ in .respond(204, [:], "") }
        defer { server.stop() }
        let dropped = try Command.run(command[0], Array(command.dropFirst()) + [
            spool.path, "PUT", server.baseURL + "/notes/\(example.file)", Self.body])
        #expect(dropped.status == 0, "\(example): \(dropped.stderr)")
        #expect(dropped.lines.count == 1 && spool.names("new") == dropped.lines, "prints the id it dropped")
        #expect(spool.names("tmp").isEmpty)
        let check = try Command.run("spool-ctl", ["--spool", spool.path, "check"])
        #expect(check.status == 0, "spool-ctl check: \(check.stdout)\(check.stderr)")
        let sent = try spool.send()
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(server.requests.map(\.path) == ["/notes/\(example.file)"])
        #expect(server.requests.first?.text == Self.body, "the body arrives as given")
        #expect(server.requests.first?.header("Idempotency-Key")?.isEmpty == false, "with its Idempotency-Key")
    }

    /// Ten times: the producer is killed with `kill -9` as soon as its file appears in `tmp/`, before it
    /// could be renamed. `new/` never holds half a file; what it holds parses.
    @Test(.enabled(if: missing.isEmpty, "needs \(missing.joined(separator: ", "))"), arguments: examples)
    func aProducerKilledMidWriteLeavesNoHalfFile(_ example: Example) throws {
        let command = try #require(Self.command(example), "\(example) can run (a Go one builds)")
        var caught = 0
        for round in 0..<10 {
            let spool = TemporarySpool()
            _ = try spool.open()
            let (process, _, _) = try Command.start(command[0], Array(command.dropFirst()) + [
                spool.path, "PUT", "http://127.0.0.1:9/notes/\(round)", Self.body])
            let appeared = eventually(within: 20, every: 0.0005) {
                !spool.names("tmp").isEmpty || !process.isRunning
            }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            #expect(appeared, "round \(round): the producer wrote or ended")
            if process.terminationReason == .uncaughtSignal && spool.names("new").isEmpty { caught += 1 }
            for name in spool.names("new") {
                let data = FileManager.default.contents(atPath: "\(spool.path)/new/\(name)") ?? Data()
                let document = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
                #expect(data.last == UInt8(ascii: "\n") && document?["body"] as? String == Self.body,
                        "round \(round): new/\(name) is whole")
            }
        }
        #expect(caught >= 1, "\(example): at least one kill landed between the file's creation and its rename")
    }

    /// What strace sees each producer do: the file fsynced before the rename into `new/`, and an fsync after
    /// it (of `new/`): the protocol's two flushes, in that order.
    @Test(.enabled(if: missing.isEmpty && FileManager.default.isExecutableFile(atPath: "/usr/bin/strace"),
                   "needs strace and \(missing.joined(separator: ", "))"),
          arguments: examples)
    func eachProducerSyncsBeforeAndAfterItsRename(_ example: Example) throws {
        let command = try #require(Self.command(example), "\(example) can run (a Go one builds)")
        let spool = TemporarySpool()
        _ = try spool.open()
        let trace = spool.directory + "/trace"
        let traced = try Command.run("/usr/bin/strace", [
            "-f", "-qq", "-o", trace, "-e", "trace=fsync,fdatasync,rename,renameat,renameat2",
        ] + command + [spool.path, "PUT", "http://127.0.0.1:9/notes/1", Self.body])
        #expect(traced.status == 0, "\(example): \(traced.stderr)")
        let calls = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
            .filter { !$0.contains("resumed") && !$0.contains("= -1") }
        let rename = try #require(calls.firstIndex { $0.contains("rename") && $0.contains("/new/") },
                                  "\(example) renames into new/: \(calls)")
        #expect(calls[..<rename].contains { $0.contains("sync(") }, "\(example): the file is synced first: \(calls)")
        #expect(calls[(rename + 1)...].contains { $0.contains("sync(") }, "\(example): then new/: \(calls)")
    }
}
