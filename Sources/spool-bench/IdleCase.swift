import Glibc
import Spool

/// Case 4: what cron pays every minute: an empty spool, and one full of operations none of which is due.
func benchIdle(_ report: Report, _ config: Config) {
    report.section("4. Idle cost of spool-send --once (median of \(config.idleRuns) runs)")
    let empty = Fixtures.spool()
    let waiting = Fixtures.spool()
    Fixtures.fill(waiting, count: config.idleQueue, base: "http://127.0.0.1:9", dueSeconds: Timestamp.now() + 86400)
    func times(_ argv: [String]) -> Stats {
        _ = run(argv)
        return Stats(values: (0..<config.idleRuns).map { _ in run(argv).seconds * 1000 })
    }
    // Cron runs a minute apart: let the folders' times settle so the first run can leave its idle hint.
    usleep(1_200_000)
    let trueStats = times(["/bin/true"])
    let help = times(["\(config.binaries)/spool-send", "--help"])
    let emptyStats = times(["\(config.binaries)/spool-send", "--spool", empty, "--once"])
    let waitingStats = times(["\(config.binaries)/spool-send", "--spool", waiting, "--once"])
    // The first run after any change lists the whole queue; measure that too, by removing the hint each time.
    let listing = Stats(values: (0..<config.idleRuns).map { _ in
        unlink(waiting + "/.idle")
        return run(["\(config.binaries)/spool-send", "--spool", waiting, "--once"]).seconds * 1000
    })
    precondition(Fixtures.count(waiting + "/new") == config.idleQueue, "an operation that was not due moved")
    report.line("process start: /bin/true \(describe(trueStats, "ms")); spool-send --help \(describe(help, "ms"))")
    report.add("idle run, ms", spool: "\(config.idleQueue) not due: " + describe(waitingStats, "ms"), baseline: "empty spool " + describe(emptyStats, "ms"),
               ratio: waitingStats.median / emptyStats.median, target: "<= 2x empty", met: waitingStats.median <= 2 * emptyStats.median)
    report.add("idle run after a change (full listing), ms", spool: "\(config.idleQueue) not due: " + describe(listing, "ms"),
               baseline: "empty spool " + describe(emptyStats, "ms"), ratio: listing.median / emptyStats.median)
    report.add("idle run, empty spool, ms", spool: describe(emptyStats, "ms"), baseline: "spool-send --help " + describe(help, "ms"),
               ratio: emptyStats.median / help.median, target: "as cheap as process start allows")
}

/// Case 5: delivery time per operation and peak memory at a small and a large queue.
func benchGrowth(_ report: Report, _ config: Config, _ server: BenchServer) {
    let (sizes, perKey) = config.growthSizes
    let spread = perKey.map { ", one key per \($0)" } ?? ", a key each"
    report.section("5. Growth: \(sizes.map(String.init).joined(separator: ", ")) queued operations (concurrency 4\(spread))")
    var listings: [(count: Int, firstLine: Double, memory: Double)] = []
    func measure(_ count: Int) -> (perOperation: Stats, memory: Stats) {
        var times: [Double] = [], memory: [Double] = []
        for _ in 0..<(count >= 100_000 ? 1 : config.repetitions) {
            let spool = Fixtures.spool()
            Fixtures.fill(spool, count: count, base: server.base, keys: perKey.map { max(1, count / $0) })
            if perKey != nil {
                // What an operator pipes into head, and what the whole listing costs in memory.
                // The time until head has its lines, not until spool-ctl notices that head is gone.
                let clock = "\(spool)/first-line"
                _ = shell("start=$(date +%s%N); '\(config.binaries)/spool-ctl' --spool '\(spool)' list | "
                          + "{ head -2 >/dev/null; echo $(( $(date +%s%N) - start )) >'\(clock)'; }")
                let first = (Double(readText(clock).filter(\.isNumber)) ?? 0) / 1e9
                let whole = run(["\(config.binaries)/spool-ctl", "--spool", spool, "list", "--json"])
                listings.append((count, first, Double(whole.maxResidentKB) / 1024))
            }
            let finished = run(["\(config.binaries)/spool-send", "--spool", spool, "--once"])
            precondition(Fixtures.count(spool + "/new") == 0)
            times.append(finished.seconds / Double(count) * 1e6)
            memory.append(Double(finished.maxResidentKB) / 1024)
            _ = shell("rm -rf '\(spool)'")
        }
        return (Stats(values: times), Stats(values: memory))
    }
    let base = measure(sizes[0])
    for size in sizes.dropFirst() {
        let b = measure(size)
        report.add("time per operation, µs", spool: "\(size): " + describe(b.perOperation, "µs"), baseline: "\(sizes[0]): " + describe(base.perOperation, "µs"),
                   ratio: b.perOperation.median / base.perOperation.median, target: "<= 1.3x", met: b.perOperation.median <= 1.3 * base.perOperation.median)
        let memoryTarget = size >= 1_000_000 ? "<= 128 MiB" : "<= 1.5x"
        let memoryMet = size >= 1_000_000 ? b.memory.median <= 128 : b.memory.median <= 1.5 * base.memory.median
        report.add("peak resident memory, MiB", spool: "\(size): " + describe(b.memory, "MiB"), baseline: "\(sizes[0]): " + describe(base.memory, "MiB"),
                   ratio: b.memory.median / base.memory.median, target: memoryTarget, met: memoryMet)
    }
    for listing in listings where listing.count >= 100_000 {
        let small = listings.first!
        report.add("spool-ctl list, first line, s", spool: "\(listing.count): " + format1(listing.firstLine, 2) + " s",
                   baseline: "\(small.count): " + format1(small.firstLine, 2) + " s", ratio: listing.firstLine / small.firstLine,
                   target: "<= 1 s", met: listing.firstLine <= 1)
        report.add("spool-ctl list --json, peak resident memory, MiB", spool: "\(listing.count): " + format1(listing.memory, 1) + " MiB",
                   baseline: "\(small.count): " + format1(small.memory, 1) + " MiB", ratio: listing.memory / small.memory,
                   target: "<= 64 MiB", met: listing.memory <= 64)
    }
}
