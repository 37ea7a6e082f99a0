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

/// The seed scenario and the sender's contract, against a real HTTP server on 127.0.0.1.
@Suite struct WorkerTests {
    @Test func serverDownThenConflictThenNothingTwice() throws {
        let spool = TemporarySpool()
        let port = TestServer.deadPort()
        let url = "http://127.0.0.1:\(port)/notes/1"
        // 1. Server down: two edits queued; nothing is sent, both stay in order, the attempt recorded.
        let first = try spool.enqueue(["PUT", url, "--if-match", "\"v1\"", "--body", "second title draft"])
        let second = try spool.enqueue(["PUT", url, "--if-match", "\"v2\"", "--body", "second title"])
        try spool.send()
        var waiting = spool.waiting()
        #expect(waiting.map(\.id) == [first, second])
        #expect(waiting[0].state?.attempts == 1)
        #expect(waiting[0].state?.lastError == "refused")
        #expect(waiting[1].state?.attempts == 0, "the second edit waits behind the first without spending an attempt")
        #expect(spool.names("cur").isEmpty)

        // 2. Another run (a restarted worker) sees the same state from the files alone.
        try spool.send()
        waiting = spool.waiting()
        #expect(waiting.map(\.id) == [first, second])
        #expect(waiting[0].state?.attempts == 1, "not yet due: not retried")

        // 3. A stale edit is queued; the server comes back on the same port.
        let stale = try spool.enqueue(["PUT", url, "--if-match", "\"v1\"", "--body", "stale edit"])
        let resource = VersionedResource()
        let server = try TestServer(port: port) { resource.handle($0) }
        defer { server.stop() }
        try spool.send(["--flush"])
        #expect(resource.title == "second title")
        #expect(resource.version == 3)
        #expect(resource.writes == 2)
        #expect(spool.operations("conflict") == [stale])
        let why = spool.read("conflict", stale + ".why")
        #expect(why.contains("status: 412"))
        #expect(why.contains("etag: \"v3\""))
        #expect(spool.names("new").isEmpty)
        #expect(spool.names("cur").isEmpty)

        // 4. Running again sends nothing twice.
        let requests = server.requests.count
        try spool.send(["--flush"])
        #expect(resource.writes == 2)
        #expect(server.requests.count == requests)
    }
}

extension WorkerTests {
    @Test func workerKilledMidRequestIsRecoveredAndTheWriteAppliedOnce() throws {
        let spool = TemporarySpool()
        let resource = VersionedResource(inject: { number, _ in number == 1 ? .delayed(30, 200) : nil })
        let server = try TestServer { resource.handle($0) }
        defer { server.stop() }
        let id = try spool.enqueue(["PUT", server.baseURL + "/notes/1", "--body", "edit"])
        let (process, _, _) = try Command.start("spool-send", ["--spool", spool.path, "--once"])
        let deadline = Date(timeIntervalSinceNow: 10)
        while server.requests.isEmpty, Date() < deadline { usleep(10_000) }
        #expect(spool.names("cur").count == 1, "the operation is claimed while its request is in flight")
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(spool.names("cur").count == 1)
        try spool.send()
        #expect(spool.names("cur").isEmpty)
        #expect(spool.names("new").isEmpty)
        #expect(resource.writes == 1)
        #expect(server.requests.count == 2)
        #expect(
            server.requests.map { $0.header("Idempotency-Key") }.allSatisfy {
                $0 == server.requests[0].header("Idempotency-Key")
            })
        _ = id
    }

    @Test func lostResponseIsRetriedWithTheSameKeyAndNotAppliedTwice() throws {
        let spool = TemporarySpool()
        let resource = VersionedResource(loseResponse: { $0 == 1 })
        let server = try TestServer { resource.handle($0) }
        defer { server.stop() }
        try spool.enqueue(["PUT", server.baseURL + "/notes/1", "--body", "edit"])
        try spool.send()
        let waiting = spool.waiting()
        #expect(waiting.count == 1)
        #expect(waiting.first?.state?.lastError == "lost")
        #expect(resource.writes == 1)
        try spool.send(["--flush"])
        #expect(spool.names("new").isEmpty)
        #expect(server.requests.count == 2)
        #expect(server.requests[0].header("Idempotency-Key") != nil)
        #expect(server.requests[0].header("Idempotency-Key") == server.requests[1].header("Idempotency-Key"))
        #expect(resource.writes == 1)
    }

    @Test func badRequestFailsAndOtherKeysStillGo() throws {
        let spool = TemporarySpool()
        let server = try TestServer { request in
            request.path == "/bad" ? .respond(400, [:], "title too long") : .respond(204, [:], "")
        }
        defer { server.stop() }
        let bad = try spool.enqueue(["PUT", server.baseURL + "/bad", "--body", "x"])
        for i in 1...3 { try spool.enqueue(["PUT", server.baseURL + "/good/\(i)", "--body", "\(i)"]) }
        try spool.send()
        #expect(spool.operations("failed") == [bad])
        let why = spool.read("failed", bad + ".why")
        #expect(why.contains("status: 400"))
        #expect(why.contains("title too long"))
        #expect(Set(server.requests.map(\.path)) == ["/bad", "/good/1", "/good/2", "/good/3"])
        #expect(spool.names("new").isEmpty)
    }

    @Test func fiftyWritesToOneKeyArriveInEnqueueOrderDespiteFailures() throws {
        let spool = TemporarySpool()
        let server = try TestServer { _ in .respond(204, [:], "") }
        let count = Locked(0)
        let flaky = try TestServer { request in
            let n = count.withLock { $0 += 1; return $0 }
            return n % 7 == 0 ? .respond(503, [:], "") : .respond(204, [:], "")
        }
        defer { server.stop(); flaky.stop() }
        for i in 0..<50 { try spool.enqueue(["PUT", flaky.baseURL + "/doc", "--body", "\(i)"]) }
        var runs = 0
        while !spool.names("new").isEmpty, runs < 30 {
            try spool.send(["--flush"])
            runs += 1
        }
        #expect(spool.names("new").isEmpty)
        // Successful writes, in the order the server saw them: exactly 0..49.
        var applied: [String] = []
        for (index, request) in flaky.requests.enumerated() where (index + 1) % 7 != 0 { applied.append(request.text) }
        #expect(applied == (0..<50).map(String.init))
        #expect(flaky.requests.count > 50)
    }

    @Test func twoWorkersTogetherSendEachKeyOnce() throws {
        let spool = TemporarySpool()
        let server = try TestServer { _ in .respond(204, [:], "") }
        defer { server.stop() }
        let temporary = try spool.open()
        for i in 0..<1000 {
            let document = JSON.object([
                ("method", .string("PUT")), ("url", .string("\(server.baseURL)/item/\(i % 100)")),
                ("body", .string("\(i)"))
            ])
            var operation = try Operation(document: document)
            if case var .object(members) = document {
                members.append(("idempotency_key", .string("key-\(i)")))
                operation = try Operation(document: .object(members))
            }
            _ = try temporary.enqueue(operation)
        }
        let workers = try (0..<2).map { _ in
            try Command.start("spool-send", ["--spool", spool.path, "--once", "--concurrency", "8"])
        }
        for (process, _, _) in workers {
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
        }
        let keys = server.requests.compactMap { $0.header("Idempotency-Key") }
        #expect(keys.count == 1000)
        #expect(Set(keys).count == 1000)
        // Per item, the bodies arrived in enqueue order.
        var last: [String: Int] = [:]
        for request in server.requests {
            let body = Int(request.text)!
            #expect(body > last[request.path, default: -1], "\(request.path) out of order")
            last[request.path] = body
        }
        #expect(spool.names("new").isEmpty && spool.names("cur").isEmpty)
    }

    @Test func watchDeliversADroppedFileQuicklyAndStopsCleanly() throws {
        let spool = TemporarySpool()
        let server = try TestServer { _ in .respond(204, [:], "") }
        defer { server.stop() }
        let (process, _, errPipe) = try Command.start("spool-send", ["--spool", spool.path, "--watch", "-v"])
        let err = OutputWatcher(errPipe)
        #expect(err.wait(for: "watching \(spool.path)/new"), "the watcher said it is watching: \(err.text)")
        let document = #"{"method":"PUT","url":"\#(server.baseURL)/dropped","body":"by mv"}"#
        spool.drop("tmp", "job-1", document)
        let dropped = Date()
        try FileManager.default.moveItem(atPath: spool.path + "/tmp/job-1", toPath: spool.path + "/new/job-1")
        while server.requests.isEmpty, Date().timeIntervalSince(dropped) < 5 { usleep(2_000) }
        let latency = try #require(server.requests.first).received.timeIntervalSince(dropped)
        #expect(latency < 1, "delivered \(latency) s after the drop")
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(err.all())")
        #expect(spool.names("cur").isEmpty)
        #expect(spool.names("new").isEmpty)
    }

    @Test func redirectIsAPermanentFailureAndNeverReplaysAnEmptyBody() throws {
        let spool = TemporarySpool()
        let server = try TestServer { request in
            request.path == "/old" ? .respond(307, ["Location": "/new"], "") : .respond(204, [:], "")
        }
        defer { server.stop() }
        let id = try spool.enqueue(["PUT", server.baseURL + "/old", "--body", "payload"])
        try spool.send()
        #expect(server.requests.map(\.path) == ["/old"], "the redirect is not followed")
        #expect(server.requests.allSatisfy { $0.text == "payload" })
        #expect(spool.operations("failed") == [id])
        #expect(spool.read("failed", id + ".why").contains("Location: /new"))
    }

    @Test func coalescedEditsBecomeOneWrite() throws {
        let spool = TemporarySpool()
        let resource = VersionedResource()
        let server = try TestServer { resource.handle($0) }
        defer { server.stop() }
        try spool.enqueue(["PUT", server.baseURL + "/notes/1", "--body", "draft 1", "--coalesce"])
        try spool.enqueue(["PUT", server.baseURL + "/notes/1", "--body", "draft 2", "--coalesce"])
        let result = try spool.send()
        #expect(resource.writes == 1)
        #expect(resource.applied == ["draft 2"])
        #expect(result.stderr.contains("coalesced"))
        #expect(spool.names("new").isEmpty)
    }

    @Test func dependenciesWaitAndFailTogether() throws {
        let spool = TemporarySpool()
        let server = try TestServer { request in
            request.path == "/fails" ? .respond(422, [:], "") : .respond(201, [:], "")
        }
        defer { server.stop() }
        // Enqueued first, but depends on a later operation with another key: sent after it.
        let parent = "parent-op"
        let child = try spool.enqueue(["POST", server.baseURL + "/child", "--depends-on", parent])
        spool.drop("tmp", parent, #"{"method":"POST","url":"\#(server.baseURL)/parent"}"#, modified: Date())
        try FileManager.default.moveItem(atPath: "\(spool.path)/tmp/\(parent)", toPath: "\(spool.path)/new/\(parent)")
        let orphan = try spool.enqueue(["POST", server.baseURL + "/orphan", "--depends-on", "will-fail"])
        spool.drop(
            "new", "will-fail", #"{"method":"POST","url":"\#(server.baseURL)/fails"}"#,
            modified: Date(timeIntervalSinceNow: -10))
        let selfish = try spool.enqueue(["POST", server.baseURL + "/self", "--depends-on", "placeholder"])
        _ = selfish
        try spool.send()
        let paths = server.requests.map(\.path)
        #expect(paths.firstIndex(of: "/parent")! < paths.firstIndex(of: "/child")!)
        #expect(!paths.contains("/orphan"))
        #expect(spool.operations("failed").contains(orphan))
        #expect(spool.read("failed", orphan + ".why").contains("depends on will-fail"))
        _ = child
    }

    @Test func credentialsAreAddedAtSendTimeAndNeverStored() throws {
        let spool = TemporarySpool()
        let server = try TestServer { _ in .respond(204, [:], "") }
        defer { server.stop() }
        let auth = spool.directory + "/auth"
        try FileManager.default.createDirectory(atPath: auth, withIntermediateDirectories: false)
        _ = FileManager.default.createFile(
            atPath: auth + "/api", contents: Data("origin = \(server.baseURL)\nAuthorization: Bearer s3cret-token\n".utf8),
            attributes: [.posixPermissions: 0o600])
        _ = FileManager.default.createFile(
            atPath: auth + "/open", contents: Data("Authorization: Bearer other\n".utf8),
            attributes: [.posixPermissions: 0o644])
        try spool.enqueue(["PUT", server.baseURL + "/a", "--auth", "api"])
        try spool.enqueue(["PUT", server.baseURL + "/b", "--auth", "open"])
        let result = try spool.send(["--auth-dir", auth, "-v"])
        #expect(server.requests.map(\.path) == ["/a"])
        #expect(server.requests.first?.header("Authorization") == "Bearer s3cret-token")
        #expect(server.requests.first?.header("User-Agent") == "spool-send/\(Version.current)")
        #expect(result.stderr.contains("readable by group or others"))
        #expect(!result.stderr.contains("s3cret"))
        #expect(spool.waiting().first?.state?.lastError == "auth")
        for folder in ["new", "cur", "failed", "conflict", "tmp"] {
            for name in spool.names(folder) { #expect(!spool.read(folder, name).contains("s3cret")) }
        }
    }

    @Test func expiredOperationsFailWithoutBeingSent() throws {
        let spool = TemporarySpool()
        let server = try TestServer { _ in .respond(204, [:], "") }
        defer { server.stop() }
        let id = try spool.enqueue(["PUT", server.baseURL + "/late", "--expires", "@1000"])
        try spool.send()
        #expect(server.requests.isEmpty)
        #expect(spool.operations("failed") == [id])
        #expect(spool.read("failed", id + ".why").contains("expired"))
    }

    @Test func deadOriginIsNotHammered() throws {
        let spool = TemporarySpool()
        let port = TestServer.deadPort()
        for i in 0..<5 { try spool.enqueue(["PUT", "http://127.0.0.1:\(port)/k\(i)"]) }
        try spool.send()
        let attempted = spool.waiting().filter { ($0.state?.attempts ?? 0) > 0 }
        #expect(attempted.count >= 1)
        #expect(attempted.count <= 4, "at most the requests already in flight when the first refusal came back")
        #expect(spool.waiting().count == 5)
    }
}
