import Glibc
import SpoolSystem

/// Case 3: delivery over plain http to a local keep-alive server, against the engine alone, a bare libcurl
/// loop (curl --parallel, nobody's code of ours), the server's ceiling, a curl-per-file loop and Python.
func benchDelivery(_ report: Report, _ config: Config, _ server: BenchServer) {
    let n = config.deliveryCount
    report.section("3. Delivery of \(n) operations to \(server.name) on 127.0.0.1")
    var spoolAt: [Int: Double] = [:]
    for concurrency in [1, 4, 8] {
        let s = Stats(values: (0..<config.repetitions).map { _ in spoolRate(server.base, n, concurrency, config) })
        let c = Stats(
            values: (0..<config.repetitions).map { _ in
                bareClientLoop(base: server.base, count: n, concurrency: concurrency)
            })
        let curl = Stats(
            values: (0..<config.repetitions).map { _ in
                curlParallel(base: server.base, count: n, concurrency: concurrency)
            })
        spoolAt[concurrency] = s.median
        report.add(
            "delivery, concurrency \(concurrency), ops/s", spool: describe(s, "/s"),
            baseline: "spool's engine alone " + describe(c, "/s"),
            ratio: s.median / c.median)
        report.add(
            "delivery, concurrency \(concurrency), ops/s", spool: describe(s, "/s"),
            baseline: "bare libcurl (curl --parallel) " + describe(curl, "/s"),
            ratio: s.median / curl.median, target: concurrency == 4 ? ">= 0.80x bare libcurl" : "",
            met: concurrency == 4 ? s.median >= 0.8 * curl.median : nil)
        if which("wrk") != nil {
            let rate = wrk(base: server.base, connections: concurrency, seconds: config.wrkSeconds)
            report.add(
                "delivery, concurrency \(concurrency), ops/s", spool: fmt(s.median) + " /s",
                baseline: "wrk (server ceiling) \(fmt(rate)) /s",
                ratio: s.median / rate)
        }
    }
    let curlLoop = Stats(
        values: (0..<config.repetitions).map { _ in curlPerFile(base: server.base, count: config.curlCount) })
    report.add(
        "delivery, default concurrency 4, ops/s", spool: fmt(spoolAt[4]!) + " /s",
        baseline: "curl-per-file loop " + describe(curlLoop, "/s"),
        ratio: spoolAt[4]! / curlLoop.median, target: ">= 20x curl loop", met: spoolAt[4]! >= 20 * curlLoop.median)
    reportAgainstPython(report, config, base: server.base)
    reportLockUse(report, config, base: server.base)
}

/// How long deliveries hold the spool lock, which is what another worker on the same spool waits for: from
/// the `-v` line of one run over the same synced queue. No target: a claim's rename is what it should cost.
private func reportLockUse(_ report: Report, _ config: Config, base: String) {
    let n = config.deliveryCount
    let spool = Fixtures.spool()
    Fixtures.fill(spool, count: n, base: base, keys: nil)
    Fixtures.settle()
    let output = Fixtures.bareDirectory() + "/verbose"
    run(["\(config.binaries)/spool-send", "--spool", spool, "--once", "-v"], output: output)
    let line = readText(output + ".err")
    guard
        let use = line.firstMatch(
            of: /spool lock taken (\d+) times, held ([0-9.]+) ms \(longest ([0-9.]+) ms\), waited ([0-9.]+) ms/)
    else {
        report.line("spool lock use: no lock line in spool-send -v's output")
        return
    }
    report.add(
        "spool lock held per delivery, concurrency 4, µs", spool: format1(Double(use.2)! * 1000 / Double(n), 1) + " µs",
        baseline: "taken \(use.1) times for \(n) deliveries; held \(use.3) ms at the longest, "
            + "waited \(use.4) ms in all",
        ratio: nil)
}

/// The rows with targets against the Python loop and the file floor, measured in rounds of one run of each
/// contestant, so that the machine's drift over the case (here the Python loop ranged from 1,100/s to 4,000/s
/// within an hour) weighs on all of them alike.
private func reportAgainstPython(_ report: Report, _ config: Config, base: String) {
    let n = config.deliveryCount
    var four: [Double] = [], one: [Double] = [], oneKey: [Double] = [], dropped: [Double] = []
    var python: [Double] = [], floor: [Double] = [], spoolCPU: [Double] = [], floorCPU: [Double] = []
    var curlCPU: [Double] = [], retiringCPU: [Double] = [], discards: [Double] = []
    let disk = DiskDiscards(under: Fixtures.root)
    for _ in 0..<config.repetitions {
        let before = disk.completed()
        let run = spoolRun(base, n, 4, config)
        if let before, let after = disk.completed() { discards.append(Double(after - before) / Double(n)) }
        four.append(Double(n) / run.seconds)
        // CPU per delivery (user + system of the whole run, divided by operations).
        spoolCPU.append(run.cpuSeconds / Double(n) * 1e6)
        one.append(spoolRate(base, n, 1, config))
        oneKey.append(Double(n) / spoolRun(base, n, 4, config, keys: 1).seconds)
        dropped.append(spoolRate(base, n, 4, config, plainNames: true))
        python.append(pythonLoop(base: base, count: n))
        let files = fileFloor(base: base, count: n)
        floor.append(files.rate)
        floorCPU.append(files.cpu)
        retiringCPU.append(fileFloor(base: base, count: n, retiring: true).cpu)
        curlCPU.append(curlParallelRun(base: base, count: n, concurrency: 4).cpuSeconds / Double(n) * 1e6)
    }
    let py = Stats(values: python)
    func againstPython(_ measure: String, _ values: [Double], _ times: Double) {
        let spool = Stats(values: values)
        report.add(
            measure, spool: describe(spool, "/s"), baseline: "Python http.client loop " + describe(py, "/s"),
            ratio: spool.median / py.median, target: ">= \(fmt(times))x Python loop",
            met: spool.median >= times * py.median)
    }
    againstPython("delivery of shell-dropped files, concurrency 4, ops/s", dropped, 1.5)
    againstPython("delivery, default concurrency 4, ops/s", four, 2.5)
    againstPython("delivery, concurrency 1, ops/s", one, 1.5)
    againstPython("delivery, one ordering key, ops/s", oneKey, 1.2)
    // Against what the work needs: the file floor's system calls plus libcurl's own per-request CPU.
    let cpu = Stats(values: spoolCPU), needed = Stats(values: floorCPU).median + Stats(values: curlCPU).median
    report.add(
        "CPU per delivery, concurrency 4, µs", spool: describe(cpu, "µs"),
        baseline: "file floor \(fmt(Stats(values: floorCPU).median)) µs + curl --parallel "
            + "\(fmt(Stats(values: curlCPU).median)) µs",
        ratio: cpu.median / needed, target: "<= 1.5x", met: cpu.median <= 1.5 * needed)
    reportDiscards(report, discards)
    // No target: the same against the file work spool's crash promise needs, the retiring rename included
    // (a delivered write leaves `cur/` before its removal, so that a kill -9 sends it again only if in flight).
    let retiring = Stats(values: retiringCPU).median, curl = Stats(values: curlCPU).median
    report.add(
        "CPU per delivery, concurrency 4, against the retiring floor, µs", spool: fmt(cpu.median) + " µs",
        baseline: "file floor with the retiring rename \(fmt(retiring)) µs + curl --parallel \(fmt(curl)) µs",
        ratio: cpu.median / (retiring + curl))
    let spool = Stats(values: four), files = Stats(values: floor)
    report.add(
        "delivery, default concurrency 4, ops/s", spool: describe(spool, "/s"),
        baseline: "file floor (readdir, rename, read, unlink) " + describe(files, "/s"),
        ratio: spool.median / files.median, target: ">= 0.8x the file floor", met: spool.median >= 0.8 * files.median)
}

/// Says when the disk discards freed blocks inside `unlink`, which makes the CPU row move between two levels
/// (see `DiskDiscards`).
private func reportDiscards(_ report: Report, _ discards: [Double]) {
    guard !discards.isEmpty else {
        report.line("disk discards: not counted (no block device counters for \(Fixtures.root))")
        return
    }
    let perDelivery = Stats(values: discards).median
    guard perDelivery >= 0.1 else { return }
    report.line(
        "the disk discarded \(format1(perDelivery, 2)) blocks per delivery inside unlink: their interrupts are "
            + "charged to spool's sending thread in the runs where it shares their CPU, never to the floor's lone "
            + "loop, which sleeps through them (BENCHMARKS.md: how to read the CPU row)")
}

/// The file work one delivery needs and nothing else, over the same synced queue: list `new/`, then per file
/// rename it into `cur/`, read it, unlink it. What spool would cost with an infinitely fast server and no logic.
/// `retiring`: each file is renamed from `cur/` into `tmp/` before it is unlinked there, as spool retires a
/// delivered one.
func fileFloor(base: String, count: Int, retiring: Bool = false) -> (rate: Double, cpu: Double) {
    let dir = Fixtures.bareDirectory()
    for i in 0..<count { writeText("\(dir)/new/f\(i)", Fixtures.document(i, base: base)) }
    Fixtures.settle()
    func cpu() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
    let cpuBefore = cpu()
    let start = now()
    let new = try! FileDescriptor.currentDirectory.openDirectory(FileName(dir + "/new"))
    let cur = try! FileDescriptor.currentDirectory.openDirectory(FileName(dir + "/cur"))
    let tmp = try! FileDescriptor.currentDirectory.openDirectory(FileName(dir + "/tmp"))
    defer { new.close(); cur.close(); tmp.close() }
    for name in try! new.entries() {
        try! new.rename(name, to: cur, as: name)
        let fd = try! cur.open(name, O_RDONLY)
        _ = try! fd.readAll(limit: 1 << 20)
        fd.close()
        if retiring {
            try! cur.rename(name, to: tmp, as: name)
            try! tmp.unlink(name)
        } else {
            try! cur.unlink(name)
        }
    }
    return (Double(count) / (now() - start), (cpu() - cpuBefore) / Double(count) * 1e6)
}

/// Operations per second of one `spoolRun`.
func spoolRate(
    _ base: String, _ n: Int, _ concurrency: Int, _ config: Config, plainNames: Bool = false, extra: [String] = []
) -> Double {
    let finished = spoolRun(base, n, concurrency, config, plainNames: plainNames, extra: extra)
    return Double(n) / finished.seconds
}

/// One `spool-send --once` over `n` operations to `base`: admitted names spread over `keys` keys (one each
/// by default), or plain names dropped with the shell protocol (then admission is part of the run).
func spoolRun(
    _ base: String, _ n: Int, _ concurrency: Int, _ config: Config, plainNames: Bool = false, extra: [String] = [],
    keys: Int? = nil
) -> Finished {
    let spool = Fixtures.spool()
    if plainNames {
        for i in 0..<n { writeText("\(spool)/new/f\(i)", Fixtures.document(i, base: base)) }
    } else {
        Fixtures.fill(spool, count: n, base: base, keys: keys)
    }
    Fixtures.settle()
    let finished = run(
        ["\(config.binaries)/spool-send", "--spool", spool, "--once", "--concurrency", "\(concurrency)"] + extra)
    precondition(Fixtures.count(spool + "/new") == 0, "spool-send left operations behind in \(spool)")
    return finished
}
