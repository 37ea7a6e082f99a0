import Dispatch
import Foundation
import Glibc
import SpoolTestSupport
import Testing
@testable import SpoolDocument
@testable import SpoolNames
@testable import SpoolSending
@testable import SpoolSystem

/// The documents the lanes come to next are read on a thread of their own: each handed out once, none kept
/// past its lane, and a merge folded into one after it was read ahead is what is sent.
@Suite struct ReadAheadTests {
    static func entry(_ id: String) -> QueueEntry {
        let name = QueueName(id: id, state: RetryState(orderMicroseconds: 1, keyHash: 1))
        return QueueEntry(fileName: name.fileName, name: name)
    }

    static func operation(_ path: String) -> SpoolDocument.Operation {
        try! Operation(bytes: Array(#"{"method": "PUT", "url": "http://127.0.0.1:9\#(path)"}"#.utf8))
    }

    @Test func aDocumentReadAheadIsHandedOutOnce() {
        let reads = Locked<[String]>([])
        let ahead = ReadAhead { entry in
            reads.withLock { $0.append(entry.id) }
            return (ReadAheadTests.operation("/" + entry.id), 7)
        }
        let entries = ["a", "b", "c"].map(Self.entry)
        ahead.want(entries)
        ahead.want(entries.prefix(1))
        #expect(eventually(within: 10) { reads.withLock { $0.count } == 3 })
        #expect(reads.withLock { $0 } == ["a", "b", "c"], "in order, each once though asked twice")
        // Taken as soon as it is read: the last read may still be storing its result.
        #expect(eventually(within: 10) { ahead.take(entries[2]) != nil })
        let taken = ahead.take(entries[0])
        #expect(taken?.operation.url == "http://127.0.0.1:9/a" && taken?.inode == 7)
        #expect(ahead.take(entries[0]) == nil, "handed out once")
    }

    @Test func whatIsForgottenOrTakenBeforeItIsReadIsNeverHandedOut() {
        let gate = DispatchSemaphore(value: 0), reads = Locked<[String]>([])
        let ahead = ReadAhead { entry in
            if entry.id == "first" { gate.wait() }
            reads.withLock { $0.append(entry.id) }
            return (ReadAheadTests.operation("/" + entry.id), 1)
        }
        let first = Self.entry("first"), taken = Self.entry("taken"), forgotten = Self.entry("forgotten")
        let last = Self.entry("last")
        ahead.want([first, taken, forgotten, last])
        // The reading thread is held in the first read: the lane comes to `taken` and reads it itself, and
        // the lane of `forgotten` stopped before it.
        #expect(ahead.take(taken) == nil)
        ahead.forget([forgotten])
        gate.signal()
        #expect(eventually(within: 10) { reads.withLock { $0.contains("last") } })
        #expect(reads.withLock { $0 } == ["first", "last"], "neither is read: \(reads.withLock { $0 })")
        #expect(ahead.take(taken) == nil && ahead.take(forgotten) == nil)
        #expect(eventually(within: 10) { ahead.take(last) != nil })
    }
}

/// End to end: the write behind a request in flight is read ahead, a merge is folded into it meanwhile, and
/// the lane sends the merged document. Real processes; the fault shim says when the write was opened.
@Suite(.enabled(if: FaultShim.available, "needs the LD_PRELOAD shim (a C compiler)"))
struct ReadAheadMergeTests {
    @Test func aMergeFoldedIntoAWriteReadAheadIsSent() throws {
        let spool = TemporarySpool()
        let holding = Locked(false), answer = DispatchSemaphore(value: 0)
        let server = try TestServer { request in
            if request.path == "/held" {
                holding.withLock { $0 = true }
                _ = answer.wait(timeout: .now() + 20)
            }
            return .respond(201, [:], "")
        }
        defer { server.stop() }
        // The origin answers first (only an origin that answered in the run is read ahead), then the key's
        // first write is held at the server while the create behind it is read ahead.
        try spool.enqueue(["PUT", server.baseURL + "/answered", "--body", "a"])
        try spool.enqueue(["PUT", server.baseURL + "/held", "--key", "item-1", "--body", "held"])
        let create = try spool.enqueue([
            "POST", server.baseURL + "/items", "--creates", "--key", "item-1", "--json", #"{"title":"a","n":1}"#,
        ])
        let opened = spool.directory + "/opened"
        let (sender, _, errors) = try Command.start(
            "spool-send", ["--spool", spool.path, "--once", "--concurrency", "1", "-v"],
            environment: FaultShim.environment(["FAULTSHIM_OPEN_MARK": "\(create):\(opened)"]))
        #expect(eventually(within: 20) { holding.withLock { $0 } && FileManager.default.fileExists(atPath: opened) },
                "the held write is at the server and the create behind it was read ahead")
        let edit = try Command.run(
            "spool-enqueue",
            ["--spool", spool.path, "PATCH", server.baseURL + "/items/1", "--merge", "--key", "item-1", "--json",
             #"{"n":2}"#])
        #expect(edit.stdout == create + "\n" && edit.stderr.contains("merged into \(create)"), "\(edit.stderr)")
        answer.signal()
        sender.waitUntilExit()
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(sender.terminationStatus == 0, "\(said)")
        let received = server.requests.map { "\($0.method) \($0.path) \(String(decoding: $0.body, as: UTF8.self))" }
        #expect(received == ["PUT /answered a", "PUT /held held", #"POST /items {"title":"a","n":2}"#],
                "the merged document, once")
        #expect(said.contains("\(create): changed by a merge since it was read"), "\(said)")
        #expect(spool.names("new").isEmpty && spool.names("cur").isEmpty)
    }
}
