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

/// kill -9 at random moments: nothing lost, nothing applied twice, order per key kept.
@Suite struct CrashTests {
    /// A server that applies each Idempotency-Key once and replays the answer for repeats, like the
    /// Idempotency-Key draft asks; it records what it applied, in order.
    final class DedupingServer: @unchecked Sendable {
        struct State {
            var applied: [(key: String, path: String, body: String)] = []
            var seen = Set<String>()
            var duplicates = 0
        }
        let state = Locked(State())
        /// Closed by `hold`: a request that arrives then waits, at most 5 s, until `release`, so that a kill
        /// lands while requests are in flight. `waiting` counts those held.
        private let gate = NSCondition()
        private var holding = false, waiting = 0

        func handle(_ request: TestServer.Request) -> TestServer.Reply {
            gate.lock()
            if holding {
                waiting += 1
                gate.broadcast()
                let deadline = Date(timeIntervalSinceNow: 5)
                while holding, gate.wait(until: deadline) {}
                waiting -= 1
            }
            gate.unlock()
            let key = request.header("Idempotency-Key") ?? ""
            return state.withLock { state in
                if !state.seen.insert(key).inserted {
                    state.duplicates += 1
                } else {
                    state.applied.append((key, request.path, request.text))
                }
                return .respond(200, [:], "")
            }
        }

        /// Holds every request that arrives from now on, until `release`.
        func hold() {
            gate.lock()
            holding = true
            gate.unlock()
        }

        /// Waits until a request is held, while `going` holds, at most until `deadline`; whether one is.
        func holdsARequest(until deadline: Date, while going: () -> Bool) -> Bool {
            gate.lock()
            defer { gate.unlock() }
            while waiting == 0, going(), Date() < deadline {
                _ = gate.wait(until: min(deadline, Date(timeIntervalSinceNow: 0.01)))
            }
            return waiting > 0
        }

        /// Lets the held requests and every later one through.
        func release() {
            gate.lock()
            holding = false
            gate.broadcast()
            gate.unlock()
        }
    }

    @Test func killedWorkersLoseNothingAndApplyNothingTwice() throws {
        let spool = TemporarySpool()
        let deduper = DedupingServer()
        let server = try TestServer { deduper.handle($0) }
        defer { server.stop() }
        let library = try spool.open()
        // A fifth of it under a sanitizer, where each start of spool-send costs a second of set-up.
        let (operations, killsWanted) = Sanitizer.name == nil ? (2000, 200) : (400, 40)
        let keys = 8, concurrency = 4
        for i in 0..<operations {
            let document = JSON.object([
                ("method", .string("PUT")), ("url", .string("\(server.baseURL)/key/\(i % keys)")),
                ("body", .string("\(i)")), ("idempotency_key", .string("op-\(i)"))
            ])
            _ = try library.enqueue(try Operation(document: document))
        }
        var kills = 0
        var generator = SystemRandomNumberGenerator()
        while kills < killsWanted, !spool.names("new").isEmpty || !spool.names("cur").isEmpty {
            // A random moment while it sends: after a random number of requests, with requests in flight.
            if try Self.sendAndKill(
                spool, server, deduper, concurrency: concurrency, after: Int.random(in: 1...8, using: &generator))
            {
                kills += 1
            }
        }
        let appliedUnderKills = deduper.state.withLock { $0.applied.count }
        try Self.sendTheRest(spool, concurrency: concurrency)
        let (applied, duplicates) = deduper.state.withLock { ($0.applied, $0.duplicates) }
        print(
            "crash test: \(operations) operations, \(kills) kills, \(appliedUnderKills) applied while being killed, "
                + "\(duplicates) duplicate requests, \(applied.count) applied in all"
        )
        #expect(
            appliedUnderKills >= killsWanted && duplicates > 0,
            "the kills must land while requests are in flight, not only during start-up")
        #expect(kills >= killsWanted)
        #expect(spool.names("new").isEmpty && spool.names("cur").isEmpty)
        #expect(applied.count == operations, "every operation applied exactly once")
        #expect(Set(applied.map(\.key)) == Set((0..<operations).map { "op-\($0)" }))
        #expect(duplicates <= kills * concurrency, "duplicates \(duplicates) > kills × concurrency")
        for k in 0..<keys {
            let bodies = applied.filter { $0.path == "/key/\(k)" }.map { Int($0.body)! }
            #expect(bodies == bodies.sorted(), "key \(k) applied out of enqueue order")
        }
    }

    /// kill -9 while delivered writes wait in `cur/` for their removal (none can finish: `FaultShim.UnlinkGate`):
    /// one write per key, and a second set that each depends on one of the first. Every write is applied once,
    /// no write it depends on reaches the server after it (not even sent again), and a kill sends again at most
    /// twice the requests that can be in flight.
    @Test(.enabled(if: FaultShim.available, "needs the LD_PRELOAD shim (a C compiler)"))
    func killedWorkersWithDeliveredWritesInCurKeepDependenciesFirst() throws {
        let spool = TemporarySpool()
        let deduper = DedupingServer()
        let server = try TestServer { deduper.handle($0) }
        defer { server.stop() }
        let library = try spool.open()
        let (pairs, killsWanted) = Sanitizer.name == nil ? (400, 25) : (100, 8)
        let concurrency = 4
        func put(_ path: String, _ key: String, dependsOn: [String] = []) throws -> String {
            var fields: [(String, JSON)] = [
                ("method", .string("PUT")), ("url", .string(server.baseURL + path)), ("idempotency_key", .string(key)),
            ]
            if !dependsOn.isEmpty { fields.append(("depends_on", .array(dependsOn.map { .string($0) }))) }
            return try library.enqueue(try Operation(document: .object(fields)))
        }
        let parents = try (0..<pairs).map { try put("/parent/\($0)", "parent-\($0)") }
        for (index, parent) in parents.enumerated() {
            _ = try put("/child/\(index)", "child-\(index)", dependsOn: [parent])
        }
        // No removal in cur/ finishes while it runs: each kill finds delivered writes waiting there.
        let gate = FaultShim.UnlinkGate(in: spool.directory)
        defer { gate.open() }
        var kills = 0
        var generator = SystemRandomNumberGenerator()
        while kills < killsWanted, !spool.names("new").isEmpty || !spool.names("cur").isEmpty {
            // More requests than a kill can leave to send again, so that each run gets further.
            if try Self.sendAndKill(
                spool, server, deduper, concurrency: concurrency, after: Int.random(in: 10...16, using: &generator),
                environment: gate.environment)
            {
                kills += 1
            }
        }
        gate.open()
        try Self.sendTheRest(spool, concurrency: concurrency)
        let (applied, duplicates) = deduper.state.withLock { ($0.applied, $0.duplicates) }
        print("crash test, writes waiting in cur/: \(2 * pairs) operations, \(kills) kills, \(duplicates) duplicates")
        #expect(kills >= killsWanted)
        #expect(duplicates > 0, "no kill landed while a request was in flight or a delivered write waited")
        #expect(spool.names("new").isEmpty && spool.names("cur").isEmpty)
        #expect(applied.count == 2 * pairs, "every operation applied exactly once")
        #expect(duplicates <= kills * 2 * concurrency, "duplicates \(duplicates) > kills × 2 × concurrency")
        let arrivals = server.requests.map(\.path)
        for index in 0..<pairs {
            let lastParent = arrivals.lastIndex(of: "/parent/\(index)") ?? -1
            let firstChild = arrivals.firstIndex(of: "/child/\(index)") ?? -1
            #expect(
                lastParent >= 0 && lastParent < firstChild,
                "pair \(index): the parent last arrived at \(lastParent), the child first at \(firstChild)")
        }
    }

    /// Starts `spool-send --once` and kills it with SIGKILL once the server has `after` more requests and
    /// `deduper` holds one more in flight (each waited for with a deadline); returns whether it was still
    /// running to be killed.
    static func sendAndKill(
        _ spool: TemporarySpool, _ server: TestServer, _ deduper: DedupingServer, concurrency: Int, after: Int,
        environment: [String: String] = [:]
    ) throws -> Bool {
        let wanted = server.requests.count + after
        let (process, _, _) = try Command.start(
            "spool-send", ["--spool", spool.path, "--once", "--concurrency", "\(concurrency)"], environment: environment)
        let deadline = Date(timeIntervalSinceNow: 5)
        while server.requests.count < wanted, process.isRunning, Date() < deadline { usleep(200) }
        deduper.hold()
        defer { deduper.release() }
        _ = deduper.holdsARequest(until: Date(timeIntervalSinceNow: 5)) { process.isRunning }
        let running = process.isRunning
        if running { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return running
    }

    /// Sends what the kills left, with `--flush`, run after run (at most 20) until `new/` and `cur/` are empty.
    static func sendTheRest(_ spool: TemporarySpool, concurrency: Int) throws {
        var runs = 0
        while !spool.names("new").isEmpty || !spool.names("cur").isEmpty, runs < 20 {
            try spool.send(["--flush", "--concurrency", "\(concurrency)"])
            runs += 1
        }
    }

    @Test func killedEnqueuesLeaveOnlyTheirOwnTemporaryFiles() throws {
        let spool = TemporarySpool()
        var printed: [String] = []
        var killed = 0
        for batch in 0..<60 {
            // Half of them die by SIGKILL at a step of the enqueue (its document written and synced in tmp/, or
            // renamed into new/ before new/ is synced and its id printed), the others run through; all at once.
            let points = ["enqueue.written", "", "enqueue.published", ""]
            let processes = try (0..<4).map { i in
                try Command.start(
                    "spool-enqueue",
                    ["--spool", spool.path, "PUT", "http://127.0.0.1:9/batch/\(batch)/\(i)", "--body", "x"],
                    environment: points[i].isEmpty ? [:] : ["SPOOL_CRASH_AT": points[i]])
            }
            for (process, out, _) in processes {
                process.waitUntilExit()
                if process.terminationReason == .uncaughtSignal, process.terminationStatus == SIGKILL { killed += 1 }
                let id = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                    .trimmingCharacters(in: .newlines)
                if !id.isEmpty { printed.append(id) }
            }
        }
        let queued = spool.names("new").compactMap { QueueName(FileName($0))?.id }
        for id in printed { #expect(queued.filter { $0 == id }.count == 1, "printed id \(id) is in new/ exactly once") }
        #expect(Set(queued).count == queued.count)
        for name in spool.names("new") {
            #expect(throws: Never.self) { _ = try Operation(bytes: Array(spool.read("new", name).utf8)) }
        }
        let leftovers = spool.names("tmp")
        print("enqueue kill test: \(printed.count) ids printed, \(killed) kills, \(leftovers.count) files left in tmp/")
        #expect(killed == 120 && printed.count == 120, "\(killed) killed, \(printed.count) printed")
        #expect(leftovers.count <= killed)
        // The 36-hour rule removes them; a run today leaves young ones alone.
        try spool.send()
        #expect(spool.names("tmp") == leftovers)
        for name in leftovers {
            try FileManager.default.setAttributes(
                [.modificationDate: Date(timeIntervalSinceNow: -37 * 3600)], ofItemAtPath: "\(spool.path)/tmp/\(name)")
        }
        try spool.send()
        #expect(spool.names("tmp").isEmpty)
    }
}
