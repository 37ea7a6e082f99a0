// Drives the Spool library from separate processes so tests can race real workers and kill them.
import Glibc
import Spool
import SpoolSystem
import SpoolTransport
import SpoolNames
import SpoolDocument
import SpoolConfiguration
import SpoolQueue
import SpoolHandlers
import SpoolSending
import SpoolReporting
import SpoolControl

let args = CommandLine.arguments
guard args.count >= 3 else {
    Program.printError(
        "usage: spool-testhelper claim-all|claim-and-hold|recover|scan|intake-starved|clean-tmp SPOOL [ARG]\n")
    exit(64)
}
let spool = try Spool(path: args[2])

switch args[1] {
case "claim-all":
    // Claims until new/ is empty, printing each id it won, then removes the file.
    var output = ""
    while true {
        var entries: [QueueEntry] = []
        try spool.scanNew { entries.append($0) }
        if entries.isEmpty { break }
        for entry in entries {
            let claim = spool.withLock { transaction in transaction.claim(entry) }
            if let fault = claim.fault { throw fault }
            guard let claimed = claim.value else { continue }
            guard (try? spool.readOperation(.cur, claimed.fileName, maxSize: 1 << 20)) != nil else { exit(70) }
            output += claimed.id + "\n"
            if let fault = spool.complete(claimed).fault { throw fault }
        }
    }
    Program.printOut(output)
case "claim-and-hold":
    var entries: [QueueEntry] = []
    try spool.scanNew { entries.append($0) }
    for entry in entries {
        if let claimed = spool.withLock({ transaction in transaction.claim(entry) }).value {
            Program.printOut(claimed.id + "\n")
            break
        }
    }
    while true { sleep(60) }
case "recover":
    let leaseSeconds = Int64(args.count > 3 ? args[3] : "300")!
    for id in try spool.withLock({ transaction throws(SystemCallError) in
        try transaction.recoverStaleClaims(leaseSeconds: leaseSeconds)
    }) {
        Program.printOut(id + "\n")
    }
case "scan":
    try spool.scanNew(log: Log(program: "spool-testhelper", level: .verbose)) {
        Program.printOut($0.fileName.escaped + "\n")
    }
case "enqueue-many":
    // Enqueues N small operations through the library, one after another.
    let count = Int(args[3])!
    for i in 0..<count {
        let document = JSON.object([("method", .string("PUT")), ("url", .string("http://127.0.0.1:9/item/\(i % 10)")),
                                    ("body", .string(String(repeating: "x", count: 150) + "\(i)"))])
        Program.printOut(try spool.enqueue(try Operation(document: document)) + "\n")
    }
case "intake-starved":
    // Lists new/, then uses up every free descriptor (a real EMFILE) and takes the dropped files in as a
    // run does (`admitDropped`), printing each fault met: "fault ERRNO". The lock and new/ are opened first.
    var names: [FileName] = []
    try spool.forEachEntry(in: .new) { name, _ in names.append(name) }
    _ = spool.directory(.new)
    _ = spool.lockPath
    var held: [Int32] = []
    while true {
        let fd = dup(0)
        if fd < 0 { break }
        held.append(fd)
    }
    var lines = ""
    spool.admitDropped(
        names, maxSize: Spool.defaultMaxDocumentSize, maxPayload: Spool.defaultMaxPayloadSize, log: .silent,
        isStopping: { false }, fault: { lines += "fault \($0.error.symbolicName)\n" })
    held.forEach { _ = close($0) }
    Program.printOut(lines)
case "clean-tmp":
    Program.printOut("\(try spool.cleanTemporaryFiles(olderThanSeconds: Int64(args[3])!))\n")
default:
    exit(64)
}
