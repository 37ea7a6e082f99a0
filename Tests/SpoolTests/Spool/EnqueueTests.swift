import Foundation
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

@Suite struct EnqueueTests {
    @Test func enqueueThenListShowsTheOperationInNew() throws {
        let spool = TemporarySpool()
        let result = try Command.run(
            "spool-enqueue",
            [
                "--spool", spool.path, "PUT", "http://127.0.0.1:9/notes/1",
                "--header", "Content-Type: text/plain", "--body", "hello",
                "--if-match", "\"v1\"", "--key", "note-1", "--max-attempts", "5"
            ])
        #expect(result.status == 0, "\(result.stderr)")
        let id = result.stdout.trimmingCharacters(in: .newlines)
        #expect(OperationID.isValid(id))
        let files = spool.names("new")
        #expect(files.count == 1)
        #expect(files.first?.hasPrefix(id + ":") == true)
        #expect(spool.names("tmp").isEmpty)
        let document = try JSON.parse(spool.read("new", files[0]))
        #expect(document["method"] == .string("PUT"))
        #expect(document["url"] == .string("http://127.0.0.1:9/notes/1"))
        #expect(document["headers"] == .object([("Content-Type", .string("text/plain"))]))
        #expect(document["body"] == .string("hello"))
        #expect(document["if_match"] == .string("\"v1\""))
        #expect(document["key"] == .string("note-1"))
        #expect(document["max_attempts"] == .number("5"))
        guard case .string(let key)? = document["idempotency_key"] else {
            Issue.record("spool-enqueue must fill in an idempotency_key")
            return
        }
        #expect(key.count == 36)
        let name = try #require(QueueName(FileName(files[0])))
        #expect(name.state?.keyHash == OrderingKey.hash("note-1"))
        let mode =
            try FileManager.default.attributesOfItem(atPath: "\(spool.path)/new/\(files[0])")[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test func jsonDocumentKeepsUnknownFieldsAndIsValidated() throws {
        let spool = TemporarySpool()
        let good = #"{"method":"POST","url":"https://example.com/a","body":{"n":1.50},"x-producer":{"trace":"t1"}}"#
        let result = try Command.run(
            "spool-enqueue", ["--spool", spool.path, "--document", "-"], stdin: Data(good.utf8))
        #expect(result.status == 0, "\(result.stderr)")
        let document = try JSON.parse(spool.read("new", spool.names("new")[0]))
        #expect(document["x-producer"] == .object([("trace", .string("t1"))]))
        #expect(document["body"] == .object([("n", .number("1.50"))]))

        let bad = #"{"method":"POST","url":"ftp://example.com/a"}"#
        let refused = try Command.run(
            "spool-enqueue", ["--spool", spool.path, "--document", "-"], stdin: Data(bad.utf8))
        #expect(refused.status == 65)
        #expect(refused.stderr.contains("spool-enqueue: error: invalid operation"))
        #expect(refused.stderr.contains("ftp"))
        #expect(spool.names("new").count == 1)
        #expect(spool.names("tmp").isEmpty)
    }

    @Test func usageErrorsExit64WithAHint() throws {
        let spool = TemporarySpool()
        for arguments in [
            ["PUT"], ["--bogus"], ["PUT", "http://x/", "--body", "a", "--body-file", "/dev/null"], ["--max-attempts"]
        ] {
            let result = try Command.run("spool-enqueue", ["--spool", spool.path] + arguments)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.stderr.hasPrefix("spool-enqueue: error: "), "\(arguments)")
            #expect(result.stderr.contains("--help"))
        }
        let help = try Command.run("spool-enqueue", ["--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("USAGE:") && help.stdout.contains("OPTIONS:"))
        #expect(spool.names("new").isEmpty)
    }

    @Test func invalidFieldsAreNamed() throws {
        let spool = TemporarySpool()
        let cases: [([String], String)] = [
            (["GE T", "http://x/"], "method"),
            (["PUT", "gopher://x/"], "gopher"),
            (["PUT", "http://x/", "--header", "Host: evil"], "Host"),
            (["PUT", "http://x/", "--max-attempts", "-3"], "max_attempts"),
            (["PUT", "http://x/", "--auth", "../etc"], "auth"),
            (["PUT", "http://x/", "--not-before", "yesterday"], "--not-before"),
        ]
        for (arguments, expected) in cases {
            let result = try Command.run("spool-enqueue", ["--spool", spool.path] + arguments)
            #expect(result.status == 65 || result.status == 64, "\(arguments)")
            #expect(result.stderr.contains(expected), "\(arguments): \(result.stderr)")
        }
        #expect(spool.names("new").isEmpty)
    }

    @Test func oneProcessNeverReordersItsOwnOperations() throws {
        let temporary = TemporarySpool()
        let spool = try temporary.open()
        var ids: [String] = []
        for i in 0..<200 {
            let operation = try Operation(
                document: .object([("method", .string("PUT")), ("url", .string("http://h/\(i % 3)"))]))
            ids.append(try spool.enqueue(operation))
        }
        var entries: [QueueEntry] = []
        try spool.scanNew { entries.append($0) }
        #expect(entries.sorted(by: QueueEntry.precedes).map(\.id) == ids)
    }

    @Test func readerNeverSeesAPartialFile() throws {
        let temporary = TemporarySpool()
        let producers = try (0..<4).map { _ in
            try Command.start("spool-testhelper", ["enqueue-many", temporary.path, "500"])
        }
        var seen = Set<String>()
        var running = true
        while running {
            running = producers.contains { $0.0.isRunning }
            for name in temporary.names("new") where !seen.contains(name) {
                let bytes = [UInt8](FileManager.default.contents(atPath: "\(temporary.path)/new/\(name)") ?? Data())
                #expect(throws: Never.self, "partial file \(name)") { _ = try Operation(bytes: bytes) }
                seen.insert(name)
            }
        }
        for (process, out, _) in producers {
            _ = out.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
        }
        #expect(temporary.names("new").count == 2000)
        #expect(temporary.names("tmp").isEmpty)
    }

    @Test func spoolPathThatIsASymlinkOrAFileIsRefused() throws {
        let temporary = TemporarySpool()
        let link = temporary.directory + "/link"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: temporary.path)
        let viaLink = try Command.run("spool-enqueue", ["--spool", link, "PUT", "http://x/"])
        #expect(viaLink.status == 74)
        #expect(viaLink.stderr.contains("symbolic link"))
        let file = temporary.directory + "/file"
        _ = FileManager.default.createFile(atPath: file, contents: Data())
        let viaFile = try Command.run("spool-enqueue", ["PUT", "http://x/"], environment: ["SPOOL_DIR": file])
        #expect(viaFile.status == 66, "not a spool")
        #expect(viaFile.stderr.contains("not a directory"))
        #expect(temporary.names("new").isEmpty)
    }

    @Test func missingFoldersAreCreatedPrivate() throws {
        let temporary = TemporarySpool()
        try FileManager.default.removeItem(atPath: temporary.path + "/cur")
        let result = try Command.run("spool-enqueue", ["PUT", "http://x/"], environment: ["SPOOL_DIR": temporary.path])
        #expect(result.status == 0)
        let mode = try FileManager.default.attributesOfItem(atPath: temporary.path + "/cur")[.posixPermissions] as? Int
        #expect(mode == 0o700)
    }

    @Test func oneBodyOnly() throws {
        let spool = TemporarySpool()
        for pair in [
            ["--body", "a", "--body", "b"], ["--body", "a", "--body-file", "-"],
            ["--body-file", "-", "--body-file", "-"]
        ] {
            let result = try Command.run("spool-enqueue", ["--spool", spool.path, "PUT", "http://127.0.0.1:9/x"] + pair)
            #expect(
                result.status == 64 && result.stderr.contains("cannot be used together"), "\(pair): \(result.stderr)")
        }
        #expect(spool.names("new").isEmpty)
    }
}
