import Glibc
import Spool
import SpoolConfiguration
import SpoolControl
import SpoolDocument
import SpoolHandlers
import SpoolNames
import SpoolQueue
import SpoolReporting
import SpoolSending
import SpoolSystem
import SpoolTransport

/// Case 11: the triage page (`spool-ctl cgi`) on a big queue, run as a web server runs it: a process per
/// request with the CGI variables. The spool holds 100,000 waiting operations and 10,000 conflicts, filed by
/// the same `Spool.file` spool-send uses, each with a server version of 1 KiB in its reason.
func benchTriage(_ report: Report, _ config: Config) {
    let waitingCount = config.quick ? 10_000 : 100_000, conflictCount = config.quick ? 1000 : 10_000
    report.section(
        "11. Triage page over \(waitingCount) waiting and \(conflictCount) conflicts (median of \(config.repetitions))")
    let path = Fixtures.spool()
    Fixtures.fill(path, count: waitingCount + conflictCount, base: "http://127.0.0.1:9")
    let spool = try! Spool(path: path)
    let theirs = Array(("{\"title\":\"theirs\",\"text\":\"" + String(repeating: "x", count: 1000) + "\"}").utf8)
    var names: [FileName] = []
    try! spool.directory(.new).forEachEntry { name, _ in if !name.isHidden { names.append(name) } }
    names.sort { (QueueName($0)?.state?.orderMicroseconds ?? 0) < (QueueName($1)?.state?.orderMicroseconds ?? 0) }
    for name in names.prefix(conflictCount) {
        let reason = FilingReason([
            ("reason", "the server refused the write as conflicting (HTTP 412)"), ("status", "412"),
            ("attempts", "1"), ("theirs-status", "200"), ("theirs-etag", "\"v2\""),
            ("theirs-content-type", "application/json"), ("theirs-length", "\(theirs.count)"),
        ], body: theirs)
        guard case .moved = spool.file(
            name, from: .new, to: .conflict, id: QueueName(name)!.id, reason: reason, log: .silent) else {
            fatalError("could not file \(name) for the triage case")
        }
    }
    let someConflict = QueueName(names[conflictCount / 2])!.id
    func page(_ query: String) -> Stats {
        let environment = [
            "REQUEST_METHOD": "GET", "QUERY_STRING": query, "SCRIPT_NAME": "/spool", "SPOOL_DIR": path,
            "REMOTE_USER": "bench", "SPOOL_CGI_SECRET": Fixtures.root + "/cgi.secret",
        ]
        let argv = ["\(config.binaries)/spool-ctl", "cgi"]
        _ = run(argv, environment: environment)
        return Stats(values: (0..<config.repetitions).map { _ in run(argv, environment: environment).seconds * 1000 })
    }
    let overview = page(""), list = page("view=conflict"), one = page("id=\(someConflict)")
    let lastPage = page("view=conflict&page=\(conflictCount / 50 - 1)")
    let stats = Stats(values: (0..<config.repetitions).map { _ in
        run(["\(config.binaries)/spool-ctl", "--spool", path, "stats"]).seconds * 1000
    })
    let spoolText = "\(waitingCount) waiting, \(conflictCount) conflicts"
    for (measure, figures) in [
        ("triage page: first screen (overview), ms", overview), ("triage page: conflicts, page 1, ms", list),
        ("triage page: conflicts, last page, ms", lastPage), ("triage page: one conflict, ms", one),
    ] {
        report.add(
            measure, spool: "\(spoolText): " + describe(figures, "ms"),
            baseline: "spool-ctl stats " + describe(stats, "ms"), ratio: figures.median / stats.median,
            target: "< 1000 ms", met: figures.median < 1000)
    }
}
