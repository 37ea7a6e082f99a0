import Glibc
import SpoolSystem

/// Case 5: delivery time per operation and peak memory at a small and a large queue.
func benchGrowth(_ report: Report, _ config: Config, _ server: BenchServer) {
    let (sizes, perKey) = config.growthSizes
    let spread = perKey.map { ", one key per \($0)" } ?? ", a key each"
    report.section(
        "5. Growth: \(sizes.map(String.init).joined(separator: ", ")) queued operations (concurrency 4\(spread))")
    var listings: [(count: Int, firstLine: Double, memory: Double)] = []
    var floors: [(count: Int, perOperation: Double)] = []
    func measure(_ count: Int) -> (perOperation: Stats, memory: Stats) {
        var times: [Double] = [], memory: [Double] = []
        for _ in 0..<(count >= 100_000 ? 1 : config.repetitions) {
            let spool = Fixtures.spool()
            Fixtures.fill(spool, count: count, base: server.base, keys: perKey.map { max(1, count / $0) })
            // A backlog has been on disk for hours, whatever its size. Without this a small queue is sent
            // before the kernel writes it back, and deleting a file that never reached the disk costs
            // a seventh of deleting one that did: that, not the queue's size, would be measured.
            sync()
            var queued = count
            if perKey != nil {
                listings.append(measureListing(spool, config, count: count))
                let floor = fileSystemFloor(spool, sample: min(count / 10, 10_000))
                floors.append((count, floor.perOperation))
                queued -= floor.operations
            }
            let finished = run(["\(config.binaries)/spool-send", "--spool", spool, "--once"])
            precondition(Fixtures.count(spool + "/new") == 0)
            times.append(finished.seconds / Double(queued) * 1e6)
            memory.append(Double(finished.maxResidentKB) / 1024)
            _ = shell("rm -rf '\(spool)'")
        }
        return (Stats(values: times), Stats(values: memory))
    }
    let base = measure(sizes[0])
    for size in sizes.dropFirst() {
        let b = measure(size)
        report.add(
            "time per operation, µs", spool: "\(size): " + describe(b.perOperation, "µs"),
            baseline: "\(sizes[0]): " + describe(base.perOperation, "µs"),
            ratio: b.perOperation.median / base.perOperation.median, target: "<= 1.3x",
            met: b.perOperation.median <= 1.3 * base.perOperation.median)
        let memoryTarget = size >= 1_000_000 ? "<= 128 MiB" : "<= 1.5x"
        let memoryMet = size >= 1_000_000 ? b.memory.median <= 128 : b.memory.median <= 1.5 * base.memory.median
        report.add(
            "peak resident memory, MiB", spool: "\(size): " + describe(b.memory, "MiB"),
            baseline: "\(sizes[0]): " + describe(base.memory, "MiB"),
            ratio: b.memory.median / base.memory.median, target: memoryTarget, met: memoryMet)
    }
    if let small = floors.first {
        for floor in floors.dropFirst() where floor.count != small.count {
            report.add(
                "file-system floor (rename, read, unlink), µs",
                spool: "\(floor.count): " + fmt(floor.perOperation) + " µs",
                baseline: "\(small.count): " + fmt(small.perOperation) + " µs",
                ratio: floor.perOperation / small.perOperation)
        }
    }
    reportListings(report, listings)
    if config.large { benchBulk(report, config, count: 100_000) }
}

/// What an operator pipes into head, and what the whole listing costs in memory.
func measureListing(_ spool: String, _ config: Config, count: Int) -> (count: Int, firstLine: Double, memory: Double) {
    // The time until head has its lines, not until spool-ctl notices that head is gone.
    let clock = "\(spool)/first-line"
    _ = shell("start=$(date +%s%N); '\(config.binaries)/spool-ctl' --spool '\(spool)' list | "
              + "{ head -2 >/dev/null; echo $(( $(date +%s%N) - start )) >'\(clock)'; }")
    let first = (Double(readText(clock).filter(\.isNumber)) ?? 0) / 1e9
    unlink(clock)
    let whole = run(["\(config.binaries)/spool-ctl", "--spool", spool, "list", "--json"])
    return (count, first, Double(whole.maxResidentKB) / 1024)
}

/// The kernel's part of delivering one operation, as spool-send does it without the request: rename
/// into cur/, open, read, close, unlink, for `sample` of the queue (which are then gone from it).
func fileSystemFloor(_ spool: String, sample: Int) -> (operations: Int, perOperation: Double) {
    var names: [String] = []
    let new = try! FileDescriptor.currentDirectory.openDirectory(FileName(spool + "/new"))
    try! new.forEachEntry { name, _ in
        if names.count < sample, !name.isHidden, let text = name.string { names.append(text) }
    }
    var buffer = [UInt8](repeating: 0, count: 4096)
    let started = now()
    for name in names {
        rename("\(spool)/new/\(name)", "\(spool)/cur/\(name)")
        let fd = open("\(spool)/cur/\(name)", O_RDONLY)
        _ = read(fd, &buffer, buffer.count)
        close(fd)
        unlink("\(spool)/cur/\(name)")
    }
    return (names.count, (now() - started) / Double(max(names.count, 1)) * 1e6)
}

func reportListings(_ report: Report, _ listings: [(count: Int, firstLine: Double, memory: Double)]) {
    guard let small = listings.first else { return }
    for listing in listings where listing.count >= 100_000 {
        report.add(
            "spool-ctl list, first line, s", spool: "\(listing.count): " + format1(listing.firstLine, 2) + " s",
            baseline: "\(small.count): " + format1(small.firstLine, 2) + " s",
            ratio: listing.firstLine / small.firstLine,
            target: "<= 1 s", met: listing.firstLine <= 1)
        report.add(
            "spool-ctl list --json, peak resident memory, MiB",
            spool: "\(listing.count): " + format1(listing.memory, 1) + " MiB",
            baseline: "\(small.count): " + format1(small.memory, 1) + " MiB", ratio: listing.memory / small.memory,
            target: "<= 64 MiB", met: listing.memory <= 64)
    }
}

/// `retry --all-failed` and `discard --all-failed` over `count` filed operations, against `rm` of the same files.
func benchBulk(_ report: Report, _ config: Config, count: Int) {
    func filled() -> String {
        let spool = Fixtures.spool()
        for i in 0..<count {
            writeText("\(spool)/failed/bench\(i)", Fixtures.document(i, base: "http://127.0.0.1:9") + "\n")
            writeText(
                "\(spool)/failed/bench\(i).why",
                "id: bench\(i)\nfolder: failed\norder: \(1_700_000_000_000_000 + i)\nreason: HTTP 400\n")
        }
        sync()
        return spool
    }
    let removed = filled()
    let floor = shell("rm -f '\(removed)'/failed/*")
    for subcommand in ["retry", "discard"] {
        let spool = filled()
        let finished = run(["\(config.binaries)/spool-ctl", "--spool", spool, subcommand, "--all-failed"])
        precondition(
            finished.status == 0 && Fixtures.count(spool + "/failed") == 0, "\(subcommand) --all-failed left operations"
        )
        report.add(
            "spool-ctl \(subcommand) --all-failed over \(count), s and MiB",
            spool: format1(finished.seconds, 1) + " s, " + format1(Double(finished.maxResidentKB) / 1024, 1) + " MiB",
            baseline: "rm of the files " + format1(floor.seconds, 1) + " s", ratio: finished.seconds / floor.seconds,
            target: "<= 64 MiB", met: Double(finished.maxResidentKB) / 1024 <= 64)
        _ = shell("rm -rf '\(spool)'")
    }
}
