import Foundation
import Glibc
import SpoolTestSupport
import Testing
@testable import SpoolSystem

/// When standard error is the journal's stream, spool's messages go through the journal's native protocol
/// with fields an operator selects by (`SPOOL_OUTCOME=conflict`) and a `MESSAGE_ID` the catalog explains.
@Suite struct JournalTests {
    /// The protocol's two forms: `NAME=value`, and a value holding a newline as name, length and bytes.
    @Test func fieldsAreEncodedAsTheProtocolSays() {
        #expect(Journal.encode([("MESSAGE", "hello"), ("PRIORITY", "4")]) == Array("MESSAGE=hello\nPRIORITY=4\n".utf8))
        let two = Journal.encode([("MESSAGE", "a\nb")])
        #expect(two == Array("MESSAGE\n".utf8) + [3, 0, 0, 0, 0, 0, 0, 0] + Array("a\nb\n".utf8))
    }

    /// Every kind of message has its catalog entry, with a subject and the pages to read, and the catalog
    /// explains nothing spool does not send.
    @Test func theCatalogExplainsEveryEvent() throws {
        let text = try String(contentsOfFile: Repository.root + "/bin/debian/spool.catalog", encoding: .utf8)
        let entries = text.components(separatedBy: "\n-- ").dropFirst().map { $0.split(separator: "\n") }
        let ids = Set(entries.compactMap { $0.first.map(String.init) })
        #expect(ids == Set(LogFields.Event.allCases.map(\.messageID)), "\(ids)")
        for entry in entries {
            #expect(entry.contains { $0.hasPrefix("Subject: ") } && entry.contains { $0.hasPrefix("Documentation: man:") },
                    "\(entry.first ?? "")")
        }
    }

    /// The catalog's commands run as printed, its fields filled in as a journal entry would fill them: each is
    /// understood (no usage error) and finds its spool and operation.
    @Test func theCatalogsCommandsRunAsPrinted() throws {
        let spool = TemporarySpool()
        let server = try TestServer { request in .respond(request.path.hasPrefix("/gone") ? 400 : 409, [:], "") }
        defer { server.stop() }
        let conflict = try spool.enqueue(["PUT", server.baseURL + "/notes/1"])
        let failed = try spool.enqueue(["PUT", server.baseURL + "/gone/1", "--key", "other"])
        try spool.send(["--no-fetch-on-conflict"])
        #expect(spool.operations("conflict").count == 1 && spool.operations("failed").count == 1)
        let text = try String(contentsOfFile: Repository.root + "/bin/debian/spool.catalog", encoding: .utf8)
        for entry in text.components(separatedBy: "\n-- ").dropFirst() {
            let id = entry.hasPrefix(LogFields.Event.failed.messageID) ? failed : conflict
            for line in entry.split(separator: "\n") where line.hasPrefix("    spool-ctl ") {
                let words = line.dropFirst(4).split(separator: " ").dropFirst().map {
                    $0.replacingOccurrences(of: "@SPOOL_DIR@", with: spool.path)
                        .replacingOccurrences(of: "@SPOOL_ID@", with: id)
                        .replacingOccurrences(of: "@SPOOL_ORIGIN@", with: server.baseURL)
                }
                #expect(!words.contains { $0.contains("@") }, "a field the test does not fill: \(line)")
                let run = try Command.run("spool-ctl", words)
                #expect(![64, 66].contains(run.status), "\(line): \(run.status) \(run.stderr)")
            }
        }
    }

    /// A datagram socket standing in for journald, and a `spool-send --once` whose standard error is a file
    /// that `JOURNAL_STREAM` names (its device and inode), as systemd names the stream it connects.
    static func runAsUnit(_ spool: TemporarySpool, _ arguments: [String], journalStream: Bool = true) throws
        -> (listener: ServiceNotifyTests.NotifyListener, stderr: String, status: Int32)
    {
        let listener = ServiceNotifyTests.NotifyListener(in: spool.directory)
        try #require(!listener.bindFailed, "the test binds its journal socket")
        let errors = spool.directory + "/stderr"
        #expect(FileManager.default.createFile(atPath: errors, contents: nil))
        let handle = try #require(FileHandle(forWritingAtPath: errors))
        var status = stat()
        #expect(fstat(handle.fileDescriptor, &status) == 0)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Command.path("spool-send"))
        process.arguments = ["--spool", spool.path, "--once"] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging([
            "JOURNAL_STREAM": journalStream ? "\(status.st_dev):\(status.st_ino)" : "1:1",
            "SPOOL_TEST_JOURNAL_SOCKET": listener.path,
        ]) { $1 }
        process.standardError = handle
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try handle.close()
        return (listener, try String(contentsOfFile: errors, encoding: .utf8), process.terminationStatus)
    }

    /// A 409: the filing's message reaches the journal with its fields, nothing is written on standard
    /// error, and the fields are those `journalctl -u spool-send SPOOL_OUTCOME=conflict` selects by.
    @Test func aConflictReachesTheJournalWithItsFields() throws {
        let spool = TemporarySpool()
        let server = try TestServer { _ in .respond(409, [:], "") }
        defer { server.stop() }
        let id = try spool.enqueue(["PUT", server.baseURL + "/notes/1", "-d", "x"])
        let (listener, stderr, status) = try Self.runAsUnit(spool, ["--no-fetch-on-conflict"])
        defer { listener.stop() }
        #expect(status == 0 && stderr.isEmpty, "standard error stays empty: \(stderr)")
        #expect(eventually(within: 5) { !listener.lines("SPOOL_OUTCOME=conflict").isEmpty }, "\(listener.messages)")
        let entry = try #require(listener.messages.first { $0.text.contains("SPOOL_OUTCOME=conflict") })
        let fields = Set(entry.text.split(separator: "\n").map(String.init))
        let origin = server.baseURL
        #expect(fields.isSuperset(of: [
            "PRIORITY=4", "SYSLOG_IDENTIFIER=spool-send", "SPOOL_ID=\(id)", "SPOOL_ORIGIN=\(origin)",
            "SPOOL_STATUS=409", "MESSAGE_ID=\(LogFields.Event.conflict.messageID)", "SPOOL_DIR=\(spool.path)",
        ]), "\(fields)")
        #expect(fields.contains { $0.hasPrefix("MESSAGE=\(id) (PUT \(server.baseURL)/notes/1) -> conflict/") })
    }

    /// A `JOURNAL_STREAM` that names another stream than standard error (it was redirected): plain lines
    /// there, nothing on the socket.
    @Test func anotherStreamGetsPlainLines() throws {
        let spool = TemporarySpool()
        let server = try TestServer { _ in .respond(409, [:], "") }
        defer { server.stop() }
        let id = try spool.enqueue(["PUT", server.baseURL + "/notes/1"])
        let (listener, stderr, status) = try Self.runAsUnit(spool, ["--no-fetch-on-conflict"], journalStream: false)
        defer { listener.stop() }
        #expect(status == 0 && stderr.hasPrefix("spool-send: \(id) (PUT "), "\(stderr)")
        #expect(listener.messages.isEmpty)
    }
}
