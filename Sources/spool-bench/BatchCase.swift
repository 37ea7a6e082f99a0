import Glibc
import SpoolQueue
import SpoolSystem

/// Case 1b: many writes queued at once through one `spool-enqueue --batch`, against the per-item durable floor
/// (write, fsync, rename, fsync the folder, for each) and against one `spool-enqueue` process per write; and
/// the two ways a batch could be flushed, as bare loops: one `syncfs` for all, or an fsync per file. Measured
/// where the benchmark runs and, when the machine allows, on an ext4 as mkfs.ext4 makes it (a journal).
func benchBatch(_ report: Report, _ config: Config) {
    let count = config.batchCount
    report.section("1b. \(count) writes of about 200 bytes queued at once (spool-enqueue --batch)")
    measureBatch(report, config, parent: Fixtures.root, label: "here", removes: false)
    guard let mounted = DefaultExt4.mount(under: Fixtures.root) else {
        report.line("batch on a default ext4: n/a: needs root, losetup and mkfs.ext4")
        return
    }
    defer { DefaultExt4.unmount(mounted) }
    measureBatch(report, config, parent: mounted, label: "ext4 as mkfs.ext4 makes it", removes: true)
}

/// The batch's rows on the file system holding `parent`. `removes`: each directory goes once measured, as a
/// small file system's inodes require; elsewhere they stay until the bench ends, since removing ten thousand
/// files on a file system mounted with `discard` keeps the disk busy through the next measurement.
private func measureBatch(_ report: Report, _ config: Config, parent: String, label: String, removes: Bool) {
    let remove = removes ? removeDirectory : { _ in }
    let count = config.batchCount, processes = config.enqueueProcesses
    let batch = parent + "/batch.jsonl"
    let lines = (0..<count).map { Fixtures.document($0, base: "http://127.0.0.1:9") }.joined(separator: "\n") + "\n"
    writeText(batch, lines)
    var batched: [Double] = [], perItem: [Double] = [], syncfsOnce: [Double] = [], fsyncEach: [Double] = []
    var perProcess: [Double] = []
    for _ in 0..<config.repetitions {
        let spool = directory(under: parent, spool: true)
        Fixtures.settle()
        let sent = run([config.binaries + "/spool-enqueue", "--spool", spool, "--batch", batch])
        precondition(sent.status == 0 && Fixtures.count(spool + "/new") == count, "the batch was not queued")
        batched.append(Double(count) / sent.seconds)
        remove(spool)
        perItem.append(floorRate(under: parent, count: count / 4, flush: .eachItem, then: remove))
        syncfsOnce.append(floorRate(under: parent, count: count, flush: .syncfsOnce, then: remove))
        fsyncEach.append(floorRate(under: parent, count: count, flush: .fsyncEachThenRename, then: remove))
        let target = directory(under: parent, spool: true)
        let finished = shell("""
            i=0; while [ $i -lt \(processes) ]; do "\(config.binaries)/spool-enqueue" --spool "\(target)" PUT http://127.0.0.1:9/item/0 --body '\(Fixtures.body)' >/dev/null; i=$((i+1)); done
            """)
        perProcess.append(Double(processes) / finished.seconds)
        remove(target)
    }
    let b = Stats(values: batched), floor = Stats(values: perItem), p = Stats(values: perProcess)
    let once = Stats(values: syncfsOnce), each = Stats(values: fsyncEach)
    report.add(
        "spool-enqueue --batch of \(count), ops/s, \(label)", spool: describe(b, "/s"),
        baseline: "per-item durable floor " + describe(floor, "/s"), ratio: b.median / floor.median,
        target: ">= 10x the per-item floor", met: b.median >= 10 * floor.median)
    report.add(
        "spool-enqueue --batch of \(count), ops/s, \(label)", spool: describe(b, "/s"),
        baseline: "spool-enqueue per process " + describe(p, "/s"), ratio: b.median / p.median,
        target: ">= 50x a process per write", met: b.median >= 50 * p.median)
    report.add(
        "batch floor: one syncfs for all, ops/s, \(label)", spool: describe(once, "/s"),
        baseline: "an fsync per file, then the renames " + describe(each, "/s"), ratio: once.median / each.median,
        target: "the flush spool-enqueue --batch uses (ratio > 1: syncfs)")
}

/// A new spool, or a bare directory with `tmp/` and `new/`, under `parent`.
private func directory(under parent: String, spool: Bool) -> String {
    Fixtures.counter += 1
    let path = "\(parent)/b\(Fixtures.counter)"
    if spool {
        _ = try! Spool(path: path)
    } else {
        for sub in ["", "/tmp", "/new"] { mkdir(path + sub, 0o700) }
    }
    return path
}

/// How a floor loop makes its files durable.
private enum Flush {
    /// Each file on its own, as the drop protocol and `spool-enqueue` do: fsync it, rename it, fsync `new/`.
    case eachItem
    /// All files written, one `syncfs`, every rename, one fsync of `new/`: what `--batch` does.
    case syncfsOnce
    /// All files written and each fsynced, every rename, one fsync of `new/`.
    case fsyncEachThenRename
}

/// Removes a directory the case made, once measured.
private func removeDirectory(_ path: String) {
    shell("rm -rf '\(path)'")
}

/// Files of about 200 bytes made durable per second in a new directory under `parent`, the system calls alone;
/// `then` is given the directory once measured.
private func floorRate(under parent: String, count: Int, flush: Flush, then: (String) -> Void) -> Double {
    let dir = directory(under: parent, spool: false)
    defer { then(dir) }
    let payload = Array((Fixtures.document(0, base: "http://127.0.0.1:9") + "\n").utf8)
    let tmp = try! FileDescriptor.currentDirectory.openDirectory(FileName(dir + "/tmp"))
    let new = try! FileDescriptor.currentDirectory.openDirectory(FileName(dir + "/new"))
    defer {
        tmp.close()
        new.close()
    }
    Fixtures.settle()
    let start = now()
    var written: [FileName] = []
    for i in 0..<count {
        let name = FileName("f\(i)")
        let fd = try! tmp.open(name, O_WRONLY | O_CREAT | O_EXCL, mode: 0o600)
        try! fd.writeAll(payload)
        if flush != .syncfsOnce { try! fd.sync() }
        fd.close()
        if flush == .eachItem {
            try! tmp.rename(name, to: new, as: name)
            try! new.sync()
        } else {
            written.append(name)
        }
    }
    if flush == .syncfsOnce { try! tmp.syncFileSystem() }
    for name in written { try! tmp.rename(name, to: new, as: name) }
    if flush != .eachItem { try! new.sync() }
    return Double(count) / (now() - start)
}
