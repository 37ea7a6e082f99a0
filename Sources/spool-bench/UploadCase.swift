import Glibc
import SpoolSystem

/// Case 8: one large payload, as spool-enqueue leaves it in the spool (copied in and synced), sent by
/// spool-send to nginx, against curl sending the same file to the same server: `--data-binary @file` (which
/// reads the file into memory first) and `-T` (which streams it). All three go through libcurl.
func benchUploads(_ report: Report, _ config: Config) {
    let size = config.uploadBytes
    report.section("8. A \(size >> 20) MiB payload to nginx on 127.0.0.1 (it reads and drops the body, 204)")
    let server = BenchServer(nginx: "client_max_body_size 0;\nlocation / { return 204; }", tls: false)
    defer { server.stop() }
    let directory = Fixtures.bareDirectory()
    let file = directory + "/payload"
    shell("head -c \(size) /dev/urandom > '\(file)' && sync '\(file)'")
    let url = server.base + "/upload"
    var memory: [Double] = []
    let spool = Stats(values: (0..<config.repetitions).map { _ in
        let spool = Fixtures.spool()
        let queued = run([config.binaries + "/spool-enqueue", "--spool", spool, "PUT", url, "--payload", file])
        precondition(queued.status == 0, "spool-enqueue --payload failed")
        shell("sync")
        let sent = run([config.binaries + "/spool-send", "--spool", spool, "--once"])
        precondition(sent.status == 0 && Fixtures.count(spool + "/new") == 0, "spool-send left the upload behind")
        memory.append(Double(sent.maxResidentKB) / 1024)
        return Double(size) / sent.seconds / 1_048_576
    })
    func curl(_ arguments: [String]) -> Stats {
        Stats(values: (0..<config.repetitions).map { _ in
            let sent = run(["/usr/bin/curl", "-s", "-f", "-o", "/dev/null"] + arguments + [url])
            precondition(sent.status == 0, "curl \(arguments) failed")
            return Double(size) / sent.seconds / 1_048_576
        })
    }
    let dataBinary = curl(["-X", "PUT", "-H", "Content-Type:", "--data-binary", "@" + file])
    let uploadFile = curl(["-T", file])
    // What spool does besides sending, done by hand: the delivered file removed, as a cron loop that uploads
    // and deletes would (a synced copy each time, made outside the timing).
    let uploadAndRemove = Stats(values: (0..<config.repetitions).map { _ in
        shell("cp '\(file)' '\(file).copy' && sync '\(file).copy'")
        let sent = shell("/usr/bin/curl -s -f -o /dev/null -T '\(file).copy' '\(url)' && rm '\(file).copy'")
        precondition(sent.status == 0, "curl -T and rm failed")
        return Double(size) / sent.seconds / 1_048_576
    })
    report.add(
        "upload of \(size >> 20) MiB, MiB/s", spool: describe(spool, " MiB/s"),
        baseline: "curl --data-binary @file " + describe(dataBinary, " MiB/s"), ratio: spool.median / dataBinary.median,
        target: ">= 0.8x curl", met: spool.median >= 0.8 * dataBinary.median)
    report.add(
        "upload of \(size >> 20) MiB, MiB/s", spool: describe(spool, " MiB/s"),
        baseline: "curl -T file " + describe(uploadFile, " MiB/s"), ratio: spool.median / uploadFile.median,
        target: ">= 0.8x curl", met: spool.median >= 0.8 * uploadFile.median)
    report.add(
        "upload of \(size >> 20) MiB, MiB/s", spool: describe(spool, " MiB/s"),
        baseline: "curl -T file, then rm " + describe(uploadAndRemove, " MiB/s"),
        ratio: spool.median / uploadAndRemove.median, target: "", met: nil)
    let peak = Stats(values: memory)
    report.add(
        "upload of \(size >> 20) MiB, spool-send peak RSS", spool: describe(peak, " MiB"), baseline: "-", ratio: nil,
        target: "< 64 MiB", met: peak.median < 64)
}
