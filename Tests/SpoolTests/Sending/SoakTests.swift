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

/// Opt-in (SPOOL_SOAK=1, SPOOL_SOAK_SECONDS, default 300): 4 producers (200 keys, paced so the workers can
/// keep up) and 4 --watch workers against a server that fails 20% of requests and drops 5% of connections.
/// Nothing lost, nothing applied twice, no growth of the watcher's memory or descriptors after warm-up.
@Suite struct SoakTests {
    static let enabled = ProcessInfo.processInfo.environment["SPOOL_SOAK"] == "1"
    static let seconds = Double(ProcessInfo.processInfo.environment["SPOOL_SOAK_SECONDS"] ?? "") ?? 300

    final class FlakyServer: @unchecked Sendable {
        struct State {
            var applied: [String: Int] = [:]
            var appliedOrder: [(key: String, body: Int)] = []
            var failures = 0
            var drops = 0
            var requests = 0
        }
        let state = Locked(State())

        func handle(_ request: TestServer.Request) -> TestServer.Reply {
            let key = request.header("Idempotency-Key") ?? ""
            let roll = Double.random(in: 0..<1)
            return state.withLock { state in
                state.requests += 1
                if roll < 0.20 {
                    // 502, a failing server: a 503 (or 429) is the origin asking for less, which its pacer
                    // obeys (spool-send(8)), and one in five would rightly slow the whole origin down.
                    state.failures += 1
                    return .respond(502, [:], "")
                }
                if state.applied[key] == nil {
                    state.applied[key] = 1
                    state.appliedOrder.append((request.path, Int(request.text) ?? -1))
                }
                if roll < 0.25 {
                    state.drops += 1
                    return .close
                }
                return .respond(200, [:], "")
            }
        }
    }

    static func residentKB(_ pid: Int32) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    static func openFiles(_ pid: Int32) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
    }

    @Test(.enabled(if: enabled, "opt-in: set SPOOL_SOAK=1 (and SPOOL_SOAK_SECONDS) to run the soak test"))
    func soak() throws {
        let spool = TemporarySpool()
        let flaky = FlakyServer()
        let server = try TestServer { flaky.handle($0) }
        defer { server.stop() }
        let stop = spool.directory + "/STOP"
        let producers = try (0..<4).map { p in
            try Command.start("/bin/sh", ["-c", """
                i=0
                while [ ! -e '\(stop)' ]; do
                  "\(Command.path("spool-enqueue"))" --spool '\(spool.path)' PUT '\(server.baseURL)/key/\(p)-'$((i % 50)) \
                    --body "$i" --idempotency-key "p\(p)-$i" >/dev/null && echo "p\(p)-$i"
                  i=$((i+1))
                  sleep 0.02
                done
                """])
        }
        let workers = try (0..<4).map { _ in
            try Command.start(
                "spool-send",
                ["--spool", spool.path, "--watch", "--min-backoff", "0", "--max-backoff", "1", "--concurrency", "4"])
        }
        let watched = workers[0].0.processIdentifier
        // The soak's length is its measure: warm-up is its first fifth, and each phase ends early, failing,
        // as soon as a watcher is gone.
        let started = Date()
        func runUntil(_ fraction: Double) {
            let end = started.addingTimeInterval(Self.seconds * fraction)
            while Date() < end, workers.allSatisfy({ $0.0.isRunning }) { usleep(100_000) }
        }
        runUntil(0.2)
        let warmRSS = Self.residentKB(watched), warmFDs = Self.openFiles(watched)
        runUntil(1)
        #expect(workers.allSatisfy { $0.0.isRunning }, "every watcher ran the whole soak")
        let endRSS = Self.residentKB(watched), endFDs = Self.openFiles(watched)
        _ = FileManager.default.createFile(atPath: stop, contents: Data())
        var enqueued = Set<String>()
        for (process, out, _) in producers {
            enqueued.formUnion(
                String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n")
                    .map(String.init))
            process.waitUntilExit()
        }
        // Draining: a key whose write fails waits for its retry time before the next write of that key goes.
        let deadline = Date(timeIntervalSinceNow: 300)
        while (!spool.names("new").isEmpty || !spool.names("cur").isEmpty), Date() < deadline {
            Thread.sleep(forTimeInterval: 0.5)
        }
        for (process, _, _) in workers { kill(process.processIdentifier, SIGTERM) }
        for (process, _, _) in workers {
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
        }
        let state = flaky.state.withLock { $0 }
        print(
            "soak: \(Int(Self.seconds)) s, \(enqueued.count) operations enqueued, \(state.applied.count) applied, "
                + "\(state.requests) requests, "
                + "\(state.failures) 502s and \(state.drops) dropped connections injected, "
                    + "\(enqueued.subtracting(state.applied.keys).count) lost; "
                + "watcher RSS \(warmRSS) KB after warm-up, \(endRSS) KB at the end; fds \(warmFDs) then \(endFDs)")
        #expect(spool.names("new").isEmpty && spool.names("cur").isEmpty && spool.names("failed").isEmpty)
        #expect(enqueued.subtracting(state.applied.keys).isEmpty, "nothing lost")
        #expect(state.applied.count == enqueued.count)
        for path in Set(state.appliedOrder.map(\.key)) {
            let bodies = state.appliedOrder.filter { $0.key == path }.map(\.body)
            #expect(bodies == bodies.sorted(), "\(path) applied in enqueue order")
        }
        #expect(endRSS <= warmRSS + warmRSS / 4 + 4096, "memory grew from \(warmRSS) KB to \(endRSS) KB")
        #expect(endFDs <= warmFDs + 2, "file descriptors grew from \(warmFDs) to \(endFDs)")
    }
}
