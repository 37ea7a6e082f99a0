import Foundation
import Glibc
import SpoolTestSupport
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

/// The corpus under Tests/Corpus and the entries no file can carry (links, FIFOs, odd names, 100 MB),
/// dropped beside good operations: nothing bad is sent, each is filed with its reason, the good ones go.
@Suite struct HostileInputTests {
    static let corpus = ManPageTests.root + "/Tests/Corpus"

    /// File name → text its reason must contain.
    static func expectations() throws -> [(String, String)] {
        try String(contentsOfFile: corpus + "/expected.tsv", encoding: .utf8).split(separator: "\n")
            .filter { !$0.hasPrefix("#") }
            .map { line in
                let parts = line.split(separator: "\t", maxSplits: 1)
                return (String(parts[0]), String(parts[1]))
            }
    }

    @Test func corpusAndSpecialEntriesAreFiledAndGoodOperationsDelivered() throws {
        let spool = TemporarySpool()
        let server = try TestServer { _ in .respond(204, [:], "") }
        defer { server.stop() }
        let old = Date(timeIntervalSinceNow: -60)
        let cases = try Self.expectations()
        #expect(cases.count >= 50)
        for (name, _) in cases {
            var bytes = try Data(contentsOf: URL(fileURLWithPath: "\(Self.corpus)/\(name)"))
            bytes = bytes.replacing(Data("PORT".utf8), with: Data("\(server.port)".utf8))
            let path = "\(spool.path)/new/\(name)"
            _ = FileManager.default.createFile(atPath: path, contents: bytes)
            try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: path)
        }
        // Entries no corpus file can be: links out of the spool, a FIFO, a directory, a sparse 100 MB file, odd names.
        let outside = spool.directory + "/outside.json"
        _ = FileManager.default.createFile(
            atPath: outside, contents: Data(#"{"method":"PUT","url":"\#(server.baseURL)/outside"}"#.utf8))
        try FileManager.default.createSymbolicLink(
            atPath: spool.path + "/new/symlink-out", withDestinationPath: outside)
        try FileManager.default.createSymbolicLink(
            atPath: spool.path + "/new/symlink-dangling", withDestinationPath: "/nonexistent/x")
        try FileManager.default.linkItem(atPath: outside, toPath: spool.path + "/new/hardlink-out")
        #expect(mkfifo(spool.path + "/new/fifo", 0o600) == 0)
        try FileManager.default.createDirectory(
            atPath: spool.path + "/new/directory", withIntermediateDirectories: false)
        let huge = open(spool.path + "/new/huge-100MB", O_WRONLY | O_CREAT, 0o600)
        #expect(ftruncate(huge, 100 << 20) == 0)
        close(huge)
        let oddNames: [[UInt8]] = [
            Array("new\nline".utf8), Array("with space".utf8), [0x62, 0x61, 0x64, 0xFF, 0xFE], Array("tab\there".utf8)
        ]
        for name in oddNames {
            let path = Array("\(spool.path)/new/".utf8) + name + [0]
            let fd = path.withUnsafeBufferPointer {
                $0.baseAddress!.withMemoryRebound(to: CChar.self, capacity: path.count) {
                    open($0, O_WRONLY | O_CREAT, 0o600)
                }
            }
            _ = #"{"method":"PUT","url":"\#(server.baseURL)/odd-name"}"#.withCString { write(fd, $0, strlen($0)) }
            close(fd)
        }
        for i in 1...3 { try spool.enqueue(["PUT", "\(server.baseURL)/good/\(i)", "--body", "good \(i)"]) }

        let result = try Command.run("spool-send", ["--spool", spool.path, "--once"], timeout: 60)
        #expect(result.status == 0, "the worker neither crashes nor hangs: \(result.stderr)")
        #expect(
            Set(server.requests.map(\.path)) == ["/good/1", "/good/2", "/good/3"], "only the good operations were sent")
        let failed = Set(spool.names("failed"))
        for (name, expected) in cases {
            #expect(failed.contains(name), "\(name) is in failed/")
            let why = spool.read("failed", name + ".why")
            #expect(why.contains(expected), "\(name).why should say \(expected): \(why)")
        }
        let special = [
            ("symlink-out", "symbolic link"), ("symlink-dangling", "symbolic link"), ("hardlink-out", "hard links"),
            ("fifo", "FIFO"), ("directory", "directory"), ("huge-100MB", "more than the limit")
        ]
        for (name, expected) in special {
            #expect(
                spool.read("failed", name + ".why").contains(expected),
                "\(name): \(spool.read("failed", name + ".why"))")
        }
        let badNames = spool.names("failed").filter { $0.hasSuffix(".why") }.map { spool.read("failed", $0) }.filter {
            $0.contains("bad file name")
        }
        #expect(
            badNames.count == oddNames.count,
            "each odd name is filed under a clean name with its original in the reason")
        // Nothing was followed: the link target is intact and was never sent; the links moved as links.
        #expect(FileManager.default.contents(atPath: outside)?.isEmpty == false)
        let linkType =
            try FileManager.default.attributesOfItem(atPath: spool.path + "/failed/symlink-out")[.type]
            as? FileAttributeType
        #expect(linkType == .typeSymbolicLink)
        #expect(spool.names("new").isEmpty)
        #expect(spool.names("cur").isEmpty)
        // A filed link is not put back into new/, where it would only be filed again: the refusal says why.
        let retry = try Command.run("spool-ctl", ["--spool", spool.path, "retry", "symlink-out"])
        #expect(retry.status == 65 && retry.stderr.contains("it is a symbolic link, which spool never follows"),
                "\(retry.status) \(retry.stderr)")
        #expect(spool.names("new").isEmpty && spool.names("failed").contains("symlink-out"))
    }
}
