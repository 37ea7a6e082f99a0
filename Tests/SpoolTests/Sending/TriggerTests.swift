import Foundation
import SpoolTestSupport
import Testing

/// The shell producer, the install script and the launchers: what a user runs without Swift.
@Suite struct TriggerTests {
    static let root = ManPageTests.root

    @Test func shellProducerNeedsNoBinary() throws {
        let spool = TemporarySpool()
        let server = try TestServer { _ in .respond(204, [:], "") }
        defer { server.stop() }
        var ids: [String] = []
        for i in 0..<3 {
            let drop = try Command.run("\(Self.root)/bin/spool-drop", ["PUT", server.baseURL + "/shell", "line \"\(i)\"\nsecond"],
                                       environment: ["SPOOL_DIR": spool.path])
            #expect(drop.status == 0, "\(drop.stderr)")
            ids.append(drop.stdout.trimmingCharacters(in: .newlines))
        }
        #expect(spool.names("tmp").isEmpty)
        #expect(spool.names("new") == ids.sorted())
        try spool.send()
        #expect(server.requests.map(\.text) == (0..<3).map { "line \"\($0)\"\nsecond" }, "delivered in drop order, body intact")
        #expect(spool.names("new").isEmpty)
    }

    @Test func installPutsBinariesAndManPagesInPlace() throws {
        let spool = TemporarySpool()
        let prefix = spool.directory + "/prefix"
        let install = try Command.run("\(Self.root)/bin/install", [prefix], environment: ["SPOOL_BINARIES": Command.products])
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
        let queued = try Command.run("\(prefix)/bin/spool-enqueue", ["--spool", spool.path, "PUT", server.baseURL + "/installed"])
        #expect(queued.status == 0)
        let sent = try Command.run("\(prefix)/bin/spool-send", ["--spool", spool.path])
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(server.requests.map(\.path) == ["/installed"])
    }
}
