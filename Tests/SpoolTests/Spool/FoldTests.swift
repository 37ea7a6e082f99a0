import Foundation
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

/// Writes still waiting, changed before they go: an edit of a queued create is merged into it, a delete of a
/// queued create cancels it, and `pending` lists what a list read must overlay. Against a recording server.
@Suite struct FoldTests {
    /// A server that records every request and answers 201, or 502 to the first `failFirst` requests.
    final class Recorder: @unchecked Sendable {
        let requests = Locked<[TestServer.Request]>([])
        let failFirst: Int
        init(failFirst: Int = 0) { self.failFirst = failFirst }
        func handle(_ request: TestServer.Request) -> TestServer.Reply {
            let count = requests.withLock { $0.append(request); return $0.count }
            return count <= failFirst ? .respond(502, [:], "") : .respond(201, [:], "")
        }
        var seen: [(String, String, String)] {
            requests.withLock { $0.map { ($0.method, $0.path, $0.text) } }
        }
    }

    func enqueue(_ spool: TemporarySpool, _ arguments: [String]) throws -> CommandResult {
        let result = try Command.run("spool-enqueue", ["--spool", spool.path] + arguments)
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        return result
    }

    /// Queues a create of item-1 (`{"title":"a","n":1}`, key `item-1`) and returns its id.
    func queueCreate(_ spool: TemporarySpool, _ server: TestServer) throws -> String {
        try enqueue(spool, [
            "POST", server.baseURL + "/items", "--creates", "--key", "item-1", "--json", #"{"title":"a","n":1}"#
        ]).stdout.trimmingCharacters(in: .newlines)
    }

    @Test func editingAQueuedCreateRewritesIt() throws {
        let spool = TemporarySpool()
        let recorder = Recorder()
        let server = try TestServer { recorder.handle($0) }
        defer { server.stop() }
        let create = try queueCreate(spool, server)
        let edit = try enqueue(spool, [
            "PATCH", server.baseURL + "/items/1", "--merge", "--key", "item-1", "--json", #"{"n":2,"tag":"x"}"#
        ])
        #expect(edit.stdout == create + "\n", "the id that carries the change")
        #expect(edit.stderr.contains("merged into \(create)"))
        #expect(spool.names("new").count == 1 && spool.names("new")[0].hasPrefix(create))
        try spool.send()
        #expect(recorder.seen.count == 1)
        #expect(recorder.seen.first?.0 == "POST" && recorder.seen.first?.1 == "/items")
        #expect(recorder.seen.first?.2 == #"{"title":"a","n":2,"tag":"x"}"#)
    }

    @Test func deletingAQueuedCreateSendsNothing() throws {
        let spool = TemporarySpool()
        let recorder = Recorder()
        let server = try TestServer { recorder.handle($0) }
        defer { server.stop() }
        let create = try enqueue(spool, [
            "POST", server.baseURL + "/items", "--creates", "--key", "item-1", "--json", #"{"title":"a"}"#
        ]).stdout.trimmingCharacters(in: .newlines)
        let edit = try enqueue(spool, [
            "PUT", server.baseURL + "/items/1", "--key", "item-1", "--json", #"{"title":"b"}"#
        ]).stdout.trimmingCharacters(in: .newlines)
        let other = try enqueue(spool, ["PUT", server.baseURL + "/other", "--body", "kept"])
        let delete = try enqueue(spool, ["DELETE", server.baseURL + "/items/1", "--key", "item-1"])
        #expect(delete.stdout.isEmpty)
        #expect(delete.stderr.contains("cancelled \(create), \(edit)"), "\(delete.stderr)")
        #expect(spool.names("new").count == 1, "only the other key's write is left")
        try spool.send()
        #expect(recorder.seen.map(\.1) == ["/other"], "nothing of item-1 reached the server")
        _ = other
    }

    @Test func aMergeOntoAnAttemptedWriteIsQueuedBehindIt() throws {
        let spool = TemporarySpool()
        let recorder = Recorder(failFirst: 1)
        let server = try TestServer { recorder.handle($0) }
        defer { server.stop() }
        let create = try queueCreate(spool, server)
        try spool.send()
        #expect(recorder.seen.count == 1, "tried once, answered 502")
        let edit = try enqueue(spool, [
            "PATCH", server.baseURL + "/items/1", "--merge", "--key", "item-1", "--json", #"{"n":2}"#
        ])
        #expect(edit.stdout != create + "\n" && edit.stderr.isEmpty, "queued as its own: \(edit.stderr)")
        #expect(spool.names("new").count == 2)
        let delete = try enqueue(spool, ["DELETE", server.baseURL + "/items/1", "--key", "item-1"])
        #expect(!delete.stdout.isEmpty, "the create was tried: the DELETE is queued behind it")
        try spool.send(["--flush"])
        #expect(recorder.seen.map { "\($0.0) \($0.1)" } == [
            "POST /items", "POST /items", "PATCH /items/1", "DELETE /items/1",
        ])
        #expect(recorder.seen[2].2 == #"{"n":2}"#)
    }

    /// The create waiting in `new/` is marked `e=MARK` with no attempts; an edit and a DELETE of its key are
    /// queued behind it, neither merged into it nor cancelling it.
    func editAndDeleteAreQueuedBehind(
        _ create: String, markedAs mark: String, _ spool: TemporarySpool, _ server: TestServer
    ) throws {
        let state = try #require(spool.names("new").first.flatMap { QueueName(FileName($0))?.state })
        #expect(state.lastError == mark && state.attempts == 0, "\(spool.names("new"))")
        let edit = try enqueue(spool, [
            "PATCH", server.baseURL + "/items/1", "--merge", "--key", "item-1", "--json", #"{"n":2}"#
        ])
        #expect(edit.stdout != create + "\n" && edit.stderr.isEmpty, "queued as its own: \(edit.stderr)")
        let delete = try enqueue(spool, ["DELETE", server.baseURL + "/items/1", "--key", "item-1"])
        #expect(!delete.stdout.isEmpty && !delete.stderr.contains("cancelled"), "\(delete.stderr)")
    }

    /// A create whose worker was killed while it was claimed may have reached the server: recovery gives it
    /// back marked `e=interrupted` (its attempts unchanged), and an edit or a DELETE of its key is queued
    /// behind it, not merged into it or cancelling it.
    @Test func aCreateAKilledWorkerMayHaveSentIsNeitherEditedNorCancelled() throws {
        let spool = TemporarySpool()
        let recorder = Recorder()
        let server = try TestServer { recorder.handle($0) }
        defer { server.stop() }
        let create = try queueCreate(spool, server)
        let (holder, out, _) = try Command.start("spool-testhelper", ["claim-and-hold", spool.path])
        #expect(out.fileHandleForReading.availableLine() == create)
        kill(holder.processIdentifier, SIGKILL)
        holder.waitUntilExit()
        #expect(try Command.run("spool-testhelper", ["recover", spool.path]).lines == [create])
        try editAndDeleteAreQueuedBehind(create, markedAs: "interrupted", spool, server)
        try spool.send()
        #expect(recorder.seen.map { "\($0.0) \($0.1)" } == ["POST /items", "PATCH /items/1", "DELETE /items/1"])
    }

    /// A filed create put back by `spool-ctl retry` may have been applied before it was filed (a timeout, an
    /// answer lost): it comes back marked `e=retried`, and an edit or a DELETE of its key is queued behind it.
    @Test func aRetriedCreateIsNeitherEditedNorCancelled() throws {
        let spool = TemporarySpool()
        let recorder = Recorder(failFirst: 1)
        let server = try TestServer { recorder.handle($0) }
        defer { server.stop() }
        let create = try enqueue(spool, [
            "POST", server.baseURL + "/items", "--creates", "--key", "item-1", "--max-attempts", "1",
            "--json", #"{"title":"a"}"#,
        ]).stdout.trimmingCharacters(in: .newlines)
        try spool.send()
        #expect(spool.operations("failed") == [create], "given up after its one attempt")
        #expect(try Command.run("spool-ctl", ["--spool", spool.path, "retry", create]).status == 0)
        try editAndDeleteAreQueuedBehind(create, markedAs: "retried", spool, server)
        try spool.send()
        #expect(recorder.seen.map { "\($0.0) \($0.1)" } == [
            "POST /items", "POST /items", "PATCH /items/1", "DELETE /items/1",
        ])
    }

    /// A file dropped with the shell protocol and not yet admitted may be a write on the key, older than a
    /// merge enqueued after it: the merge is queued behind it, not folded into the admitted write before it.
    @Test func aMergeAtEnqueueDoesNotJumpAFileNotYetAdmitted() throws {
        let spool = TemporarySpool()
        let recorder = Recorder()
        let server = try TestServer { recorder.handle($0) }
        defer { server.stop() }
        let create = try queueCreate(spool, server)
        // Written just after the create: its time is set 10 µs past the create's order stamp, since a file's
        // time is the kernel's coarse clock and may read earlier than the create's fine one.
        let stamp = try #require(spool.waiting().first?.state?.orderMicroseconds)
        spool.drop(
            "new", "dropped-put", #"{"method":"PUT","url":"\#(server.baseURL)/items/1","key":"item-1","body":{"n":2}}"#,
            modified: Date(timeIntervalSince1970: Double(stamp + 10) / 1e6))
        let edit = try enqueue(spool, [
            "PATCH", server.baseURL + "/items/1", "--merge", "--key", "item-1", "--json", #"{"n":3}"#
        ])
        #expect(edit.stdout != create + "\n" && edit.stderr.isEmpty, "queued behind: \(edit.stdout)\(edit.stderr)")
        try spool.send()
        #expect(recorder.seen.map { "\($0.0) \($0.2)" } == [
            #"POST {"title":"a","n":1}"#, #"PUT {"n":2}"#, #"PATCH {"n":3}"#,
        ], "the server ends at n=3, as written")
    }

    @Test func droppedFilesFoldAtAdmission() throws {
        let spool = TemporarySpool()
        let recorder = Recorder()
        let server = try TestServer { recorder.handle($0) }
        defer { server.stop() }
        // The shell protocol, no binary: a create, then an edit of it, then a create and delete of another.
        let earlier = Date().addingTimeInterval(-10)
        func drop(_ name: String, _ document: String, _ age: Double) {
            spool.drop("new", name, document + "\n", modified: earlier.addingTimeInterval(age))
        }
        drop("create-1", #"{"method":"POST","url":"\#(server.baseURL)/items","key":"i1","creates":true,"body":{"a":1,"b":1}}"#, 0)
        drop("edit-1", #"{"method":"PATCH","url":"\#(server.baseURL)/items/1","key":"i1","merge":true,"body":{"b":null,"c":3}}"#, 1)
        drop("create-2", #"{"method":"POST","url":"\#(server.baseURL)/items","key":"i2","creates":true,"body":{"a":2}}"#, 2)
        drop("delete-2", #"{"method":"DELETE","url":"\#(server.baseURL)/items/2","key":"i2"}"#, 3)
        let sent = try spool.send(["-v"])
        #expect(recorder.seen.count == 1, "\(recorder.seen) \(sent.stderr)")
        #expect(recorder.seen.first?.0 == "POST" && recorder.seen.first?.2 == #"{"a":1,"c":3}"#)
        #expect(sent.stderr.contains("edit-1 (PATCH \(server.baseURL)/items/1): merged into create-1"), "\(sent.stderr)")
        #expect(sent.stderr.contains("cancelled create-2"), "\(sent.stderr)")
        #expect(spool.names("new").isEmpty && spool.names("failed").isEmpty)
    }

    @Test(arguments: ["merge.written", "merge.exchanged"])
    func aCrashAtEachStepOfAMergeLeavesOneOperation(point: String) throws {
        let spool = TemporarySpool()
        let recorder = Recorder()
        let server = try TestServer { recorder.handle($0) }
        defer { server.stop() }
        let create = try enqueue(spool, [
            "POST", server.baseURL + "/items", "--creates", "--key", "item-1", "--json", #"{"n":1}"#
        ]).stdout.trimmingCharacters(in: .newlines)
        let edit = ["--spool", spool.path, "PATCH", server.baseURL + "/items/1", "--merge", "--key", "item-1",
                    "--json", #"{"n":2}"#]
        let crashed = try Command.run("spool-enqueue", edit, environment: ["SPOOL_CRASH_AT": point])
        #expect(crashed.status == SIGKILL, "killed at \(point): \(crashed.stderr)")
        let waiting = spool.names("new")
        #expect(waiting.count == 1 && waiting[0].hasPrefix(create), "exactly one of old and merged: \(waiting)")
        let document = spool.read("new", waiting[0])
        #expect(document.contains(point == "merge.written" ? #"{\"n\":1}"# : #"{\"n\":2}"#), "\(document)")
        // The producer saw no success and tries again: a merge patch applied twice is applied once.
        #expect(try Command.run("spool-enqueue", edit).stdout == create + "\n")
        try spool.send()
        #expect(recorder.seen.count == 1 && recorder.seen.first?.2 == #"{"n":2}"#, "\(recorder.seen)")
    }

    @Test func aCrashBeforeADroppedMergeIsRemovedAppliesItOnce() throws {
        let spool = TemporarySpool()
        let recorder = Recorder()
        let server = try TestServer { recorder.handle($0) }
        defer { server.stop() }
        let earlier = Date().addingTimeInterval(-10)
        spool.drop("new", "create", #"{"method":"POST","url":"\#(server.baseURL)/i","creates":true,"body":{"n":1,"m":[1]}}"#,
                   modified: earlier)
        spool.drop("new", "edit", #"{"method":"PATCH","url":"\#(server.baseURL)/i","merge":true,"body":{"m":[1,2]}}"#,
                   modified: earlier.addingTimeInterval(1))
        let crashed = try Command.run(
            "spool-send", ["--spool", spool.path, "--once"], environment: ["SPOOL_CRASH_AT": "merge.exchanged"])
        #expect(crashed.status == SIGKILL)
        #expect(recorder.seen.isEmpty)
        try spool.send()
        #expect(recorder.seen.count == 1 && recorder.seen.first?.2 == #"{"n":1,"m":[1,2]}"#, "\(recorder.seen)")
        #expect(spool.names("new").isEmpty)
    }

    @Test func pendingListsWhatAListMustOverlayInSendOrder() throws {
        let spool = TemporarySpool()
        let base = "http://127.0.0.1:\(TestServer.deadPort())"
        let ids = try [
            ["POST", base + "/items", "--creates", "--key", "item-9", "--json", #"{"title":"new one"}"#],
            ["PUT", base + "/items/3", "--json", #"{"title":"renamed"}"#],
            ["PUT", base + "/other/1", "--body", "elsewhere"],
            ["DELETE", base + "/items/4"],
        ].map { try enqueue(spool, $0).stdout.trimmingCharacters(in: .newlines) }
        let listed = try Command.run(
            "spool-ctl", ["--spool", spool.path, "pending", "--url-prefix", base + "/items", "--json"])
        #expect(listed.status == 0, "\(listed.stderr)")
        let lines = listed.stdout.split(separator: "\n").map { try! JSON.parse(String($0)) }
        #expect(lines.map { $0["id"] } == [ids[0], ids[1], ids[3]].map(JSON.string))
        #expect(lines[0]["creates"] == .bool(true) && lines[0]["body"] == .object([("title", .string("new one"))]))
        #expect(lines[1]["method"] == .string("PUT") && lines[1]["creates"] == .bool(false))
        #expect(lines[2]["method"] == .string("DELETE") && lines[2]["body"] == nil)
        let byKey = try Command.run("spool-ctl", ["--spool", spool.path, "pending", "--key", "item-9"])
        #expect(byKey.stdout.contains(ids[0]) && !byKey.stdout.contains(ids[1]))
    }

    @Test func aMergeNeedsAJSONBody() throws {
        let spool = TemporarySpool()
        let refused = try Command.run(
            "spool-enqueue", ["--spool", spool.path, "PATCH", "http://127.0.0.1:9/x", "--merge", "--body", "not json"])
        #expect(refused.status == 65)
        #expect(refused.stderr.contains("field \"body\" must be JSON (a \"merge\" write is a JSON Merge Patch"))
        #expect(spool.names("new").isEmpty)
    }

    /// RFC 7396, appendix A.
    @Test func mergePatchFollowsRFC7396() throws {
        let cases: [(String, String, String)] = [
            (#"{"a":"b"}"#, #"{"a":"c"}"#, #"{"a":"c"}"#), (#"{"a":"b"}"#, #"{"b":"c"}"#, #"{"a":"b","b":"c"}"#),
            (#"{"a":"b"}"#, #"{"a":null}"#, #"{}"#), (#"{"a":"b","b":"c"}"#, #"{"a":null}"#, #"{"b":"c"}"#),
            (#"{"a":["b"]}"#, #"{"a":"c"}"#, #"{"a":"c"}"#), (#"{"a":"c"}"#, #"{"a":["b"]}"#, #"{"a":["b"]}"#),
            (#"{"a":{"b":"c"}}"#, #"{"a":{"b":"d","c":null}}"#, #"{"a":{"b":"d"}}"#),
            (#"{"a":[{"b":"c"}]}"#, #"{"a":[1]}"#, #"{"a":[1]}"#), (#"["a","b"]"#, #"["c","d"]"#, #"["c","d"]"#),
            (#"{"a":"b"}"#, #"["c"]"#, #"["c"]"#), (#"{"a":"foo"}"#, "null", "null"), (#"{"a":"foo"}"#, #""bar""#, #""bar""#),
            (#"{"e":null}"#, #"{"a":1}"#, #"{"e":null,"a":1}"#), (#"[1,2]"#, #"{"a":"b","c":null}"#, #"{"a":"b"}"#),
            (#"{}"#, #"{"a":{"bb":{"ccc":null}}}"#, #"{"a":{"bb":{}}}"#),
        ]
        for (target, patch, result) in cases {
            let merged = try JSON.parse(target).mergePatched(with: try JSON.parse(patch))
            #expect(merged == (try JSON.parse(result)), "\(target) + \(patch)")
            #expect(merged.mergePatched(with: try JSON.parse(patch)) == merged, "idempotent")
        }
    }
}
