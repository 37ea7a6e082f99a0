import Foundation
import SpoolTestSupport
import Testing

/// The shell producer, the install script and the launchers: what a user runs without Swift.
@Suite struct TriggerTests {
    static let root = ManPageTests.root

    /// spool(5)'s drop protocol in POSIX sh, run as the page prints it (only its URL pointed at the test
    /// server), three times from the directory holding the spool.
    @Test func shellProducerNeedsNoBinary() throws {
        let spool = TemporarySpool()
        let server = try TestServer { _ in .respond(204, [:], "") }
        defer { server.stop() }
        let example = try #require(try ManPageExamples.blocks(in: "spool.5").first { $0.contains("spool/tmp/$name") },
                                   "spool(5) shows the drop protocol in sh")
        let script = example.replacingOccurrences(of: "http://127.0.0.1:8080", with: server.baseURL)
        var ids: [String] = []
        for _ in 0..<3 {
            let drop = try Command.run("/bin/sh", ["-c", "cd \"$1\" && \(script)", "sh", spool.directory])
            #expect(drop.status == 0, "\(drop.stderr)")
            ids.append(drop.stdout.trimmingCharacters(in: .newlines))
        }
        #expect(spool.names("tmp").isEmpty)
        #expect(spool.names("new") == ids.sorted(), "the names sort in drop order")
        try spool.send()
        #expect(server.requests.map(\.text) == ["hello", "hello", "hello"])
        #expect(server.requests.map(\.path) == ["/notes/1", "/notes/1", "/notes/1"])
        #expect(spool.names("new").isEmpty && spool.names("failed").isEmpty)
    }

    /// spool(5)'s batch drop in sh, run as printed (its URL pointed at the test server): three writes in
    /// `new/` with one flush for all, none left in `tmp/`, each delivered.
    @Test func theBatchDropInShRunsAsPrinted() throws {
        let spool = TemporarySpool()
        let server = try TestServer { _ in .respond(204, [:], "") }
        defer { server.stop() }
        let example = try #require(try ManPageExamples.blocks(in: "spool.5").first { $0.contains("sync -f spool/tmp") },
                                   "spool(5) shows the batch drop in sh")
        let script = example.replacingOccurrences(of: "http://127.0.0.1:8080", with: server.baseURL)
        let drop = try Command.run("/bin/sh", ["-c", "cd \"$1\" && \(script)", "sh", spool.directory])
        #expect(drop.status == 0, "\(drop.stderr)")
        #expect(spool.names("new").count == 3 && spool.names("tmp").isEmpty, "\(spool.names("new"))")
        try spool.send()
        #expect(Set(server.requests.map(\.text)) == ["note 1", "note 2", "note 3"])
        #expect(spool.names("new").isEmpty && spool.names("failed").isEmpty)
    }

    @Test func installPutsBinariesAndManPagesInPlace() throws {
        let spool = TemporarySpool()
        let prefix = spool.directory + "/prefix"
        let install = try Command.run(
            "\(Self.root)/bin/spool-install", [prefix], environment: ["SPOOL_BINARIES": Command.products])
        #expect(install.status == 0, "\(install.stderr)")
        for program in ["spool-send", "spool-send-http", "spool-enqueue", "spool-ctl"] {
            #expect(FileManager.default.isExecutableFile(atPath: "\(prefix)/bin/\(program)"), "\(program)")
        }
        for page in ["spool-send", "spool-ctl", "spool-enqueue", "spool"] {
            let found = try Command.run("/usr/bin/man", ["-w", page], environment: ["MANPATH": "\(prefix)/share/man"])
            #expect(found.stdout.hasPrefix(prefix), "man -w \(page): \(found.stdout) \(found.stderr)")
        }
        // The installed front finds its sending half beside it.
        let server = try TestServer { _ in .respond(204, [:], "") }
        defer { server.stop() }
        let queued = try Command.run(
            "\(prefix)/bin/spool-enqueue", ["--spool", spool.path, "PUT", server.baseURL + "/installed"])
        #expect(queued.status == 0)
        let sent = try Command.run("\(prefix)/bin/spool-send", ["--spool", spool.path])
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(server.requests.map(\.path) == ["/installed"])
    }
}
