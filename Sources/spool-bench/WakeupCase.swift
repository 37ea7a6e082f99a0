import Glibc
import SpoolTestSupport

/// Case 6: from the rename into new/ to the request arriving at the server, with spool-send --watch.
func benchWakeup(_ report: Report, _ config: Config) {
    report.section("6. Wake-up latency of spool-send --watch (\(config.drops) drops)")
    let server = try! TestServer { _ in .respond(204, [:], "") }
    defer { server.stop() }
    let spool = Fixtures.spool()
    let started = now()
    let pid = spawn(["\(config.binaries)/spool-send", "--spool", spool, "--watch"])
    usleep(300_000)
    var latencies: [Double] = []
    for i in 0..<config.drops {
        let name = "drop\(i)"
        writeText("\(spool)/tmp/\(name)", #"{"method":"PUT","url":"\#(server.baseURL)/drop/\#(i)"}"#)
        let t0 = TestServer.monotonicNow()
        rename("\(spool)/tmp/\(name)", "\(spool)/new/\(name)")
        let deadline = now() + 5
        while server.requests.count <= i, now() < deadline { usleep(100) }
        guard server.arrivals.count > i else { break }
        latencies.append(Double(server.arrivals[i] - t0) / 1e6)
        usleep(5_000)
    }
    kill(pid, SIGTERM)
    let finished = wait(pid, started: started)
    guard latencies.count == config.drops else {
        report.line("only \(latencies.count) of \(config.drops) drops arrived")
        return
    }
    let stats = Stats(values: latencies)
    report.add(
        "wake-up latency, ms",
        spool: "median \(fmt(stats.median)) ms, p95 \(fmt(stats.percentile(0.95))) ms, max \(fmt(stats.max)) ms",
        baseline: "-", ratio: nil, target: "median < 20 ms", met: stats.median < 20)
    report.line(
        "watcher exit status after SIGTERM: \(finished.status); left in cur/: \(Fixtures.count(spool + "/cur"))")
}
