import Glibc
import SpoolQueue
import SpoolSystem

/// Case 8: one large payload, as spool-enqueue leaves it in the spool (copied in and synced), sent by
/// spool-send to nginx, against curl sending the same file to the same server: `--data-binary @file` (which
/// reads the file into memory first) and `-T` (which streams it). All three go through libcurl.
///
/// Measured twice when the machine allows: where the benchmark runs, and on an ext4 made as `mkfs.ext4` makes
/// it (a journal) and mounted as Debian mounts it (no `discard`), on a loop device. Where ext4 has no journal
/// and is mounted with `discard`, as on some cloud images, removing a file waits for the disk to discard its
/// blocks (`blkdev_issue_discard` under `unlinkat`): the delivered payload's removal, which spool must do and
/// curl does not, then costs more than its upload over loopback.
func benchUploads(_ report: Report, _ config: Config) {
    let size = config.uploadBytes
    report.section("8. A \(size >> 20) MiB payload to nginx on 127.0.0.1 (it reads and drops the body, 204)")
    let server = BenchServer(nginx: "client_max_body_size 0;\nlocation / { return 204; }", tls: false)
    defer { server.stop() }
    let here = Fixtures.bareDirectory()
    measureUploads(report, config, server: server, directory: here, label: "here (\(fileSystem(of: here)))")
    guard let mounted = DefaultExt4.mount(under: Fixtures.root) else {
        report.line("upload on a default ext4: n/a: needs root, losetup and mkfs.ext4")
        return
    }
    defer { DefaultExt4.unmount(mounted) }
    measureUploads(report, config, server: server, directory: mounted, label: "ext4 as mkfs.ext4 makes it")
}

/// "ext4, discard": the type of the file system holding `directory`, and whether it discards on removal.
private func fileSystem(of directory: String) -> String {
    guard shell("findmnt -n -o FSTYPE,OPTIONS -T '\(directory)' > '\(directory)/mount'").status == 0 else {
        return "unknown file system"
    }
    let fields = readText(directory + "/mount").split(whereSeparator: { $0 == " " || $0 == "\n" })
    guard let type = fields.first else { return "unknown file system" }
    let discards = fields.dropFirst().first?.split(separator: ",").contains("discard") == true
    return String(type) + (discards ? ", mounted with discard" : "")
}

/// The upload rows for payloads and spools kept in `directory`.
private func measureUploads(_ report: Report, _ config: Config, server: BenchServer, directory: String, label: String) {
    let size = config.uploadBytes
    let file = directory + "/payload"
    shell("head -c \(size) /dev/urandom > '\(file)' && sync '\(file)'")
    defer { unlink(file) }
    let url = server.base + "/upload"
    var memory: [Double] = []
    var counter = 0
    let spool = Stats(values: (0..<config.repetitions).map { _ in
        counter += 1
        let spool = "\(directory)/spool\(counter)"
        _ = try! Spool(path: spool)
        defer { shell("rm -rf '\(spool)'") }
        let queued = run([config.binaries + "/spool-enqueue", "--spool", spool, "PUT", url, "--payload", file])
        precondition(queued.status == 0, "spool-enqueue --payload failed")
        shell("sync")
        let sent = run([config.binaries + "/spool-send", "--spool", spool, "--once"])
        precondition(sent.status == 0 && Fixtures.count(spool + "/new") == 0, "spool-send left the upload behind")
        memory.append(Double(sent.maxResidentKB) / 1024)
        return Double(size) / sent.seconds / 1_048_576
    })
    let dataBinary = Stats(values: (0..<config.repetitions).map { _ in
        let sent = run(["/usr/bin/curl", "-s", "-f", "-o", "/dev/null", "-X", "PUT", "-H", "Content-Type:",
                        "--data-binary", "@" + file, url])
        precondition(sent.status == 0, "curl --data-binary failed")
        return Double(size) / sent.seconds / 1_048_576
    })
    // curl -T sends a copy written and synced just before, as spool's payload is, so that both start from the
    // same state of the disk; the copy's removal, which spool does and curl does not, is timed apart.
    var uploads: [Double] = [], uploadsAndRemovals: [Double] = []
    for _ in 0..<config.repetitions {
        shell("cp '\(file)' '\(file).copy' && sync")
        let sent = run(["/usr/bin/curl", "-s", "-f", "-o", "/dev/null", "-T", file + ".copy", url])
        precondition(sent.status == 0, "curl -T failed")
        let removed = run(["/bin/rm", file + ".copy"])
        uploads.append(Double(size) / sent.seconds / 1_048_576)
        uploadsAndRemovals.append(Double(size) / (sent.seconds + removed.seconds) / 1_048_576)
    }
    let uploadFile = Stats(values: uploads), uploadAndRemove = Stats(values: uploadsAndRemovals)
    let row = "upload of \(size >> 20) MiB, \(label), MiB/s"
    report.add(
        row, spool: describe(spool, " MiB/s"),
        baseline: "curl --data-binary @file " + describe(dataBinary, " MiB/s"), ratio: spool.median / dataBinary.median,
        target: ">= 0.8x curl", met: spool.median >= 0.8 * dataBinary.median)
    report.add(
        row, spool: describe(spool, " MiB/s"),
        baseline: "curl -T file " + describe(uploadFile, " MiB/s"), ratio: spool.median / uploadFile.median,
        target: ">= 0.8x curl", met: spool.median >= 0.8 * uploadFile.median)
    report.add(
        row, spool: describe(spool, " MiB/s"),
        baseline: "curl -T file, then rm " + describe(uploadAndRemove, " MiB/s"),
        ratio: spool.median / uploadAndRemove.median, target: "", met: nil)
    let peak = Stats(values: memory)
    report.add(
        "upload of \(size >> 20) MiB, \(label), spool-send peak RSS", spool: describe(peak, " MiB"), baseline: "-",
        ratio: nil, target: "< 64 MiB", met: peak.median < 64)
}

/// An ext4 file system with mkfs.ext4's defaults (a journal), mounted with mount's defaults (no `discard`) from
/// an image file on a loop device: the file system most Linux installations hold their spool on.
enum DefaultExt4 {
    /// Makes and mounts one under `root`; nil where the machine cannot (not root, no losetup or mkfs.ext4).
    static func mount(under root: String) -> String? {
        guard getuid() == 0, which("mkfs.ext4") != nil, which("losetup") != nil else { return nil }
        let image = root + "/ext4.img", point = root + "/ext4"
        let made = shell(
            "truncate -s 2G '\(image)' && mkfs.ext4 -q -F '\(image)' && mkdir -p '\(point)' && "
                + "mount -o loop '\(image)' '\(point)'")
        return made.status == 0 ? point : nil
    }

    /// Unmounts it (the loop device is released with it) so that the benchmark's clean-up can remove the image.
    static func unmount(_ point: String) {
        shell("umount '\(point)'")
    }
}
