import Foundation
import SpoolTestSupport
import Testing

/// README.md's examples, run as printed from a directory holding a spool of the test's own: only `bin/`'s
/// launchers stand for the programs just built, port 8080 for a port of the test's, and `/srv/app` for that
/// directory.
@Suite struct ReadmeTests {
    /// The README's indented blocks, each as its lines without the indent.
    static func blocks() throws -> [[String]] {
        let text = try String(contentsOfFile: "\(Repository.root)/README.md", encoding: .utf8)
        var blocks: [[String]] = [], current: [String] = []
        for line in text.components(separatedBy: "\n") {
            if line.hasPrefix("    ") {
                current.append(String(line.dropFirst(4)))
            } else if !current.isEmpty {
                blocks.append(current)
                current = []
            }
        }
        if !current.isEmpty { blocks.append(current) }
        return blocks
    }

    /// The block whose first line starts with `prefix`.
    static func block(startingWith prefix: String) throws -> [String] {
        try #require(try blocks().first { $0.first?.hasPrefix(prefix) == true }, "README shows `\(prefix)`")
    }

    /// `line` as the test runs it: the programs just built, the test's port and directory.
    static func local(_ line: String, port: UInt16, directory: String) -> String {
        line.replacingOccurrences(of: "bin/spool-", with: "\(Command.products)/spool-")
            .replacingOccurrences(of: "8080", with: "\(port)")
            .replacingOccurrences(of: "/srv/app", with: directory)
    }

    /// Runs one command line of the README in `directory` with sh.
    static func run(_ line: String, port: UInt16, in directory: String) throws -> CommandResult {
        try Command.run("/bin/sh", ["-c", local(line, port: port, directory: directory)], workingDirectory: directory)
    }

    /// The demo: two writes wait while nothing listens, then, with Python's server up and the origin
    /// flushed, the read delivered and the PUT (501) filed in `failed/` with its reason.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"), "needs python3"))
    func theDemoRunsAsPrinted() throws {
        let spool = TemporarySpool()
        let port = RefusedOriginTests.closedPort()
        let queue = try Self.block(startingWith: "bin/spool-enqueue PUT")
        for line in queue {
            let result = try Self.run(line, port: port, in: spool.directory)
            #expect(result.status == 0, "\(line): \(result.stderr)")
        }
        let deferred = spool.names("new")
        #expect(deferred.count == 2 && deferred.contains { $0.contains("a=1") && $0.contains("e=refused") },
                "both wait, one tried: \(deferred)")
        let recover = try Self.block(startingWith: "python3 -m http.server")
        let serve = try #require(recover.first).replacingOccurrences(of: " &", with: "")
        let (server, _, _) = try Command.start(
            "/bin/sh", ["-c", "exec " + Self.local(serve, port: port, directory: "")], workingDirectory: spool.directory)
        defer { server.terminate() }
        #expect(eventually(within: 10) { Nginx.listening(port) }, "python3 -m http.server listens on \(port)")
        var listed = ""
        for line in recover.dropFirst() {
            let result = try Self.run(line, port: port, in: spool.directory)
            #expect(result.status == 0, "\(line): \(result.stderr)")
            listed = result.stdout
        }
        let filed = spool.names("failed")
        #expect(filed.count == 2 && listed.split(separator: "\n").map(String.init).sorted() == filed.sorted(), "\(listed)")
        let reason = try #require(filed.first { $0.hasSuffix(".why") }).map { spool.read("failed", $0) }
        #expect(reason?.contains("501") == true, "\(reason ?? "")")
        #expect(spool.names("new").isEmpty && spool.names("cur").isEmpty)
    }

    /// The drop in sh, under a common umask: `spool-ctl check` finds nothing wrong with what it made, and
    /// the write is delivered.
    @Test func theDropInShPassesCheckAsPrinted() throws {
        let spool = TemporarySpool()
        let server = try TestServer { _ in .respond(204, [:], "") }
        defer { server.stop() }
        let block = try Self.block(startingWith: "name=$(date")
        #expect(block.contains { $0.contains("mv \"spool/tmp/$name\" \"spool/new/$name\"") }, "\(block)")
        let script = "umask 022\n" + block.joined(separator: "\n")
            .replacingOccurrences(of: "http://127.0.0.1:8080", with: server.baseURL)
        let drop = try Command.run("/bin/sh", ["-c", "cd \"$1\" && \(script)", "sh", spool.directory])
        #expect(drop.status == 0, "\(drop.stderr)")
        let check = try Command.run("spool-ctl", ["--spool", spool.path, "check"])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        try spool.send()
        #expect(server.requests.map(\.text) == ["hello"])
    }

    /// The curl-like command line, the cron line's command and the watcher: each queues or delivers.
    @Test func theCurlLineTheCronLineAndTheWatcherDeliver() throws {
        let spool = TemporarySpool()
        let server = try TestServer { _ in .respond(204, [:], "") }
        defer { server.stop() }
        let port = UInt16(server.baseURL.split(separator: ":").last!)!
        let curl = try #require(try Self.block(startingWith: "bin/spool-enqueue -X PUT").first)
        let queued = try Self.run(curl, port: port, in: spool.directory)
        #expect(queued.status == 0, "\(queued.stderr)")
        let cron = try #require(try Self.block(startingWith: "* * * * *").first)
        let command = cron.split(separator: " ", maxSplits: 5).last.map(String.init) ?? ""
        let sent = try Self.run(command, port: port, in: spool.directory)
        #expect(sent.status == 0 && sent.stdout.isEmpty && sent.stderr.isEmpty, "\(sent.stdout)\(sent.stderr)")
        #expect(server.requests.map(\.path) == ["/notes/7"] && server.requests.first?.text == #"{"title":"hello"}"#)

        let watch = try #require(try Self.block(startingWith: "bin/spool-send --watch").first)
        let (watcher, _, _) = try Command.start(
            "/bin/sh", ["-c", "exec " + Self.local(watch, port: port, directory: "")], workingDirectory: spool.directory)
        defer { watcher.terminate() }
        let again = try Self.run(curl, port: port, in: spool.directory)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(eventually(within: 20) { server.requests.count == 2 }, "the watcher delivers the second write")
    }
}
