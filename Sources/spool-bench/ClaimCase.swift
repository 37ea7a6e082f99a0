import Glibc
import SpoolNames
import SpoolQueue
import SpoolSystem

/// Case 2: claim and finish without network, with 1, 2 and 4 worker processes, against a rename+unlink floor with
/// and without the lock.
func benchClaims(_ report: Report, _ config: Config) {
    let n = config.claimCount
    report.section("2. Claim and finish without network (\(n) operations)")
    // Two floors: the system calls alone, and the same with the flock the worker holds per claim (it must:
    // a release racing a claim could reorder a key). The spool is judged against the like-for-like one.
    let bare = Stats(values: (0..<config.repetitions).map { _ in claimFloor(n, locked: false) })
    let floorStats = Stats(values: (0..<config.repetitions).map { _ in claimFloor(n, locked: true) })
    report.add("floor without the lock, ops/s", spool: "-", baseline: "rename+unlink " + describe(bare, "/s"),
               ratio: floorStats.median / bare.median, target: "what the lock costs (ratio: locked / bare)")
    for workers in [1, 2, 4] {
        var rates: [Double] = []
        var exactlyOnce = true
        for _ in 0..<config.repetitions {
            let spool = Fixtures.spool()
            Fixtures.fill(spool, count: n, base: "http://127.0.0.1:9")
            let outputs = (0..<workers).map { "\(spool)-claims-\($0)" }
            let start = now()
            let pids = outputs.map { spawn(["\(config.binaries)/spool-bench", "claim-worker", spool], output: $0) }
            for pid in pids { _ = wait(pid, started: start) }
            // Timed from the first worker's start of claiming to the last one's end, as the floor is:
            // loading this (large) program is not part of claiming.
            let lines = outputs.flatMap { readText($0).split(separator: "\n") }
            let starts = lines.filter { $0.hasPrefix("START ") }.compactMap { Double($0.dropFirst(6)) }
            let ends = lines.filter { $0.hasPrefix("END ") }.compactMap { Double($0.dropFirst(4)) }
            rates.append(Double(n) / ((ends.max() ?? now()) - (starts.min() ?? start)))
            let ids = lines.filter { !$0.hasPrefix("START ") && !$0.hasPrefix("END ") }
            exactlyOnce = exactlyOnce && ids.count == n && Set(ids).count == n && Fixtures.count(spool + "/new") == 0
        }
        let stats = Stats(values: rates)
        report.add(
            "claims, \(workers) process\(workers == 1 ? "" : "es"), ops/s", spool: describe(stats, "/s"),
            baseline: "flock+rename+unlink floor " + describe(floorStats, "/s"),
            ratio: stats.median / floorStats.median,
            target: workers == 1
                ? ">= 0.80x floor" : "scales until disk/cores saturate; exactly once: \(exactlyOnce ? "yes" : "NO")",
            met: workers == 1 ? stats.median >= 0.8 * floorStats.median && exactlyOnce : exactlyOnce)
    }
}

/// One run of the floor over `n` files: rename into `cur/` and unlink, each under `flock` when `locked`.
func claimFloor(_ n: Int, locked: Bool) -> Double {
    let dir = Fixtures.bareDirectory()
    for i in 0..<n { writeText("\(dir)/new/f\(i)", "{}") }
    let new = try! FileDescriptor.currentDirectory.openDirectory(FileName(dir + "/new"))
    let cur = try! FileDescriptor.currentDirectory.openDirectory(FileName(dir + "/cur"))
    let lock = open(dir + "/.lock", O_RDONLY | O_CREAT | O_CLOEXEC, 0o600)
    defer { new.close(); cur.close(); close(lock) }
    // The floor is the system calls alone: names are made before the clock starts.
    let names = try! new.entries().map { ($0, FileName($0.string! + "@claimed")) }
    let start = now()
    for (name, claimed) in names {
        if locked { flock(lock, LOCK_EX) }
        try! new.rename(name, to: cur, as: claimed)
        if locked { flock(lock, LOCK_UN) }
        try! cur.unlink(claimed)
    }
    return Double(n) / (now() - start)
}

/// The worker process of case 2: claims and finishes operations until none is left, printing the ids it won.
/// Like the floor, it does not read the documents: this measures claiming, not parsing.
func claimWorker(_ path: String) {
    let spool = try! Spool(path: path)
    var won: [String] = ["START \(now())"]
    while true {
        var entries: [QueueEntry] = []
        try! spool.scanNew { entries.append($0) }
        if entries.isEmpty { break }
        entries.sort(by: QueueEntry.precedes)
        for entry in entries {
            guard let claimed = spool.withLock({ transaction in transaction.claim(entry) }).value else { continue }
            precondition(spool.complete(claimed).wasMoved)
            won.append(claimed.id)
        }
    }
    won.append("END \(now())")
    print(won.joined(separator: "\n"))
}
