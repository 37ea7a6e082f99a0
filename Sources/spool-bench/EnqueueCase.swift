import Glibc
import SpoolDocument
import SpoolQueue
import SpoolSystem

/// Case 1: durable enqueue, through the library and one process per operation, against floors.
func benchEnqueue(_ report: Report, _ config: Config) {
    report.section("1. Durable enqueue (\(config.enqueueCount) operations of about 200 bytes)")
    let operation = try! Operation(bytes: Array(Fixtures.document(0, base: "http://127.0.0.1:9").utf8))
    let payload = Array((Fixtures.document(0, base: "http://127.0.0.1:9") + "\n").utf8)
    var library: [Double] = [], floor: [Double] = []
    for _ in 0..<config.repetitions {
        let spool = try! Spool(path: Fixtures.spool())
        var start = now()
        for _ in 0..<config.enqueueCount { _ = try! spool.enqueue(operation) }
        library.append(Double(config.enqueueCount) / (now() - start))

        // The floor: the same system calls with no spool logic at all.
        let dir = Fixtures.bareDirectory()
        let tmp = try! FileDescriptor.currentDirectory.openDirectory(FileName(dir + "/tmp"))
        let new = try! FileDescriptor.currentDirectory.openDirectory(FileName(dir + "/new"))
        start = now()
        for i in 0..<config.enqueueCount {
            let name = FileName("f\(i)")
            let fd = try! tmp.open(name, O_WRONLY | O_CREAT | O_EXCL, mode: 0o600)
            try! fd.writeAll(payload)
            try! fd.sync()
            fd.close()
            try! tmp.rename(name, to: new, as: name)
            try! new.sync()
        }
        floor.append(Double(config.enqueueCount) / (now() - start))
        tmp.close()
        new.close()
    }
    let lib = Stats(values: library), raw = Stats(values: floor)
    report.add("enqueue, library, ops/s", spool: describe(lib, "/s"), baseline: "floor " + describe(raw, "/s"),
               ratio: lib.median / raw.median, target: ">= 0.80x floor", met: lib.median >= 0.8 * raw.median)

    // One process per operation, as shell scripts call it, against the shell protocol itself.
    let n = config.enqueueProcesses
    let doc = Fixtures.document(0, base: "http://127.0.0.1:9").replacingOccurrences(of: "'", with: "")
    var perProcess: [Double] = [], durableShell: [Double] = [], plainShell: [Double] = []
    for _ in 0..<config.repetitions {
        let spool = Fixtures.spool()
        var finished = shell("""
            i=0; while [ $i -lt \(n) ]; do "\(config.binaries)/spool-enqueue" --spool "\(spool)" PUT http://127.0.0.1:9/item/0 --body '\(Fixtures.body)' >/dev/null; i=$((i+1)); done
            """)
        perProcess.append(Double(n) / finished.seconds)
        let dir = Fixtures.bareDirectory()
        finished = shell("""
            i=0; while [ $i -lt \(n) ]; do f=$(mktemp "\(dir)/tmp/XXXXXXXX"); printf '%s\\n' '\(doc)' > "$f"; sync "$f"; mv "$f" "\(dir)/new/"; sync "\(dir)/new"; i=$((i+1)); done
            """)
        durableShell.append(Double(n) / finished.seconds)
        let plain = Fixtures.bareDirectory()
        finished = shell("""
            i=0; while [ $i -lt \(n) ]; do f=$(mktemp "\(plain)/tmp/XXXXXXXX"); printf '%s\\n' '\(doc)' > "$f"; mv "$f" "\(plain)/new/"; i=$((i+1)); done
            """)
        plainShell.append(Double(n) / finished.seconds)
    }
    let p = Stats(values: perProcess), d = Stats(values: durableShell), s = Stats(values: plainShell)
    report.add(
        "spool-enqueue per process, ops/s", spool: describe(p, "/s"),
        baseline: "sh mktemp+printf+mv+sync " + describe(d, "/s"),
        ratio: p.median / d.median, target: "> 1x durable shell", met: p.median > d.median)
    report.add(
        "spool-enqueue per process, ops/s", spool: describe(p, "/s"),
        baseline: "sh mktemp+printf+mv, no sync " + describe(s, "/s"),
        ratio: p.median / s.median, target: "ideally >= 1x", met: p.median >= s.median)
}
