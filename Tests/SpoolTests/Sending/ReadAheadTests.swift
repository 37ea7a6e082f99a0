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

    static func file(_ inode: UInt64, size: Int = 0) -> FileIdentity {
        FileIdentity(inode: inode, modifiedNanoseconds: 0, size: size)
    }

    /// A read-ahead that records what it reads, each a document of `size` bytes.
    static func recording(size: @escaping @Sendable (String) -> Int = { _ in 1 }) -> (ReadAhead, Locked<[String]>) {
        let reads = Locked<[String]>([])
        let ahead = ReadAhead { entry in
            reads.withLock { $0.append(entry.id) }
            return (ReadAheadTests.operation("/" + entry.id), ReadAheadTests.file(1, size: size(entry.id)))
        }
        return (ahead, reads)
    }

    /// Asks for a marker and waits until it is read: reads are made in the order asked for, so whatever was
    /// asked for before it has been read by then.
    static func settle(_ ahead: ReadAhead, _ reads: Locked<[String]>, _ name: String) -> Bool {
        ahead.want([entry(name)])
        return eventually(within: 10) { reads.withLock { $0.contains(name) } }
    }

    /// A lane asks for the writes after one only once it claimed it, a batch at a time, and forgets from where
    /// it stopped: a lane that stops at its first write (deferred, paused, parked) has read nothing ahead.
    @Test func aLaneAsksForItsNextWritesOnlyOnceOneIsClaimed() {
        let (ahead, reads) = Self.recording()
        let lane = (0..<80).map { Self.entry("e\($0)") }
        var stopped = LaneReadAhead(lane: lane, ahead: ahead)
        stopped.forgetTheRest()
        #expect(Self.settle(ahead, reads, "marker1"))
        #expect(reads.withLock { $0 } == ["marker1"], "nothing asked for before a claim")
        var asked = LaneReadAhead(lane: lane, ahead: ahead)
        asked.claimed(0)
        asked.claimed(1)
        #expect(Self.settle(ahead, reads, "marker2"))
        let batch = (1...ReadAhead.batch).map { "e\($0)" }
        #expect(reads.withLock { $0 } == ["marker1"] + batch + ["marker2"], "one batch")
        asked.current = 3
        asked.forgetTheRest()
        #expect(ahead.take(lane[3]) == nil && ahead.take(lane[ReadAhead.batch]) == nil, "forgotten from there")
        #expect(ahead.take(lane[1]) != nil && ahead.take(lane[2]) != nil, "what came before it is the lane's")
    }

    @Test func aDocumentReadAheadIsHandedOutOnce() {
        let (ahead, reads) = Self.recording()
        let entries = ["a", "b", "c"].map(Self.entry)
        ahead.want(entries)
        ahead.want(entries.prefix(1))
        #expect(Self.settle(ahead, reads, "marker"))
        #expect(reads.withLock { $0 } == ["a", "b", "c", "marker"], "in order, each once though asked twice")
        let taken = ahead.take(entries[0])
        #expect(taken?.operation.url == "http://127.0.0.1:9/a" && taken?.file.inode == 1)
        #expect(ahead.take(entries[0]) == nil, "handed out once")
    }

    /// At most `keptBytesLimit` of documents are kept: what would go past it is left to the lanes, and what a
    /// lane takes makes room again.
    @Test func documentsKeptAreBoundedBySize() {
        let big = ReadAhead.keptBytesLimit * 3 / 4
        let (ahead, reads) = Self.recording { $0.hasPrefix("big") ? big : 1 }
        let first = Self.entry("big1"), second = Self.entry("big2"), third = Self.entry("big3")
        ahead.want([first, second])
        #expect(Self.settle(ahead, reads, "marker"))
        #expect(ahead.take(second) == nil, "past the limit: not kept")
        #expect(ahead.take(first) != nil)
        ahead.want([third])
        #expect(Self.settle(ahead, reads, "marker2"))
        #expect(ahead.take(third) != nil, "taking the first made room")
    }

    @Test func whatIsForgottenOrTakenBeforeItIsReadIsNeverHandedOut() {
        let gate = DispatchSemaphore(value: 0), reads = Locked<[String]>([])
        let ahead = ReadAhead { entry in
            if entry.id == "first" { gate.wait() }
            reads.withLock { $0.append(entry.id) }
            return (ReadAheadTests.operation("/" + entry.id), ReadAheadTests.file(1))
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

    /// A claimed file is checked against the file its document was read from (a read ahead waits for its
    /// lane), by inode, time and size: here a DELETE, which no merge can change, rewritten in place (the same
    /// inode) with another `if_match`; then rewritten into a request to another origin, which is not sent.
    @Test func aClaimedFileIsCheckedAgainstTheFileItWasReadFrom() throws {
        let temporary = TemporarySpool()
        let spool = try temporary.open()
        let document = #"{"method":"DELETE","url":"http://127.0.0.1:9/items/1","if_match":"\"v1\""}"#
        _ = try spool.enqueue(try SpoolDocument.Operation(bytes: Array(document.utf8)))
        let worker = Worker(spool: spool, options: WorkerOptions())
        let entry = try #require(worker.makePlan().lanes.first?.first)
        let early = try #require(try spool.readOperationAndStatus(.new, entry.fileName, maxSize: 65536))
        let claimed = try #require(spool.withLock { $0.claim(entry) }.value)
        let path = "\(temporary.path)/cur/\(claimed.fileName)"
        func rewrite(_ text: String) throws {
            let handle = try #require(FileHandle(forUpdatingAtPath: path))
            try handle.truncate(atOffset: 0)
            try handle.write(contentsOf: Data(text.utf8))
            try handle.close()
        }
        let file = early.status.identity
        #expect(worker.asClaimed(claimed, early.operation, file: file)?.ifMatch == "\"v1\"", "unchanged")
        try rewrite(#"{"method":"DELETE","url":"http://127.0.0.1:9/items/1","if_match":"\"v2-rewritten\""}"#)
        let status = try spool.directory(.cur).status(of: claimed.fileName)
        #expect(status.inode == file.inode, "rewritten in place: the inode alone cannot tell")
        #expect(worker.asClaimed(claimed, early.operation, file: file)?.ifMatch == "\"v2-rewritten\"")
        try rewrite(#"{"method":"DELETE","url":"http://127.0.0.2:9/items/1","if_match":"\"v1\""}"#)
        #expect(worker.asClaimed(claimed, early.operation, file: file) == nil, "another origin: not sent")
    }
}

/// End to end: the write behind a request in flight is read ahead, a merge is folded into it meanwhile, and
/// the lane sends the merged document. Real processes; the fault shim says when the write was opened.
@Suite(.enabled(if: FaultShim.available, "needs the LD_PRELOAD shim (a C compiler)"))
struct ReadAheadMergeTests {
    @Test func aMergeFoldedIntoAWriteReadAheadIsSent() throws {
        let spool = TemporarySpool()
        let held = try HeldServer(holding: "/held", status: 201), server = held.server
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
        #expect(eventually(within: 20) { held.isHolding && FileManager.default.fileExists(atPath: opened) },
                "the held write is at the server and the create behind it was read ahead")
        let edit = try Command.run(
            "spool-enqueue",
            ["--spool", spool.path, "PATCH", server.baseURL + "/items/1", "--merge", "--key", "item-1", "--json",
             #"{"n":2}"#])
        #expect(edit.stdout == create + "\n" && edit.stderr.contains("merged into \(create)"), "\(edit.stderr)")
        held.release()
        sender.waitUntilExit()
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(sender.terminationStatus == 0, "\(said)")
        let received = server.requests.map { "\($0.method) \($0.path) \(String(decoding: $0.body, as: UTF8.self))" }
        #expect(received == ["PUT /answered a", "PUT /held held", #"POST /items {"title":"a","n":2}"#],
                "the merged document, once")
        #expect(said.contains("\(create): changed since it was read"), "\(said)")
        #expect(spool.names("new").isEmpty && spool.names("cur").isEmpty)
    }
}
