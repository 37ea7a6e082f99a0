import Glibc

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
    guard which("nginx") != nil else {
        report.line("uploads: n/a: needs nginx (Debian's nginx-light)")
        return
    }
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
    // One of each contestant per round, so that the disk's drift over the case (this one wanders by half)
    // weighs on all of them alike. Every contestant sends a copy written and synced just before: spool's is
    // queued by spool-enqueue; curl -T's is made by cp, and its removal, which spool does and curl does not,
    // is timed apart.
    var spoolRates: [Double] = [], memory: [Double] = [], dataBinaryRates: [Double] = []
    var uploads: [Double] = [], uploadsAndRemovals: [Double] = []
    for round in 1...config.repetitions {
        let sent = uploadThroughSpool(config, url: url, file: file, spool: "\(directory)/spool\(round)")
        spoolRates.append(Double(size) / sent.seconds / 1_048_576)
        memory.append(Double(sent.maxResidentKB) / 1024)
        let posted = run(["/usr/bin/curl", "-s", "-f", "-o", "/dev/null", "-X", "PUT", "-H", "Content-Type:",
                          "--data-binary", "@" + file, url])
        precondition(posted.status == 0, "curl --data-binary failed")
        dataBinaryRates.append(Double(size) / posted.seconds / 1_048_576)
        shell("cp '\(file)' '\(file).copy' && sync")
        let streamed = run(["/usr/bin/curl", "-s", "-f", "-o", "/dev/null", "-T", file + ".copy", url])
        precondition(streamed.status == 0, "curl -T failed")
        let removed = run(["/bin/rm", file + ".copy"])
        uploads.append(Double(size) / streamed.seconds / 1_048_576)
        uploadsAndRemovals.append(Double(size) / (streamed.seconds + removed.seconds) / 1_048_576)
    }
    let uploadFile = Stats(values: uploads), uploadAndRemove = Stats(values: uploadsAndRemovals)
    let spool = Stats(values: spoolRates), dataBinary = Stats(values: dataBinaryRates)
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

/// One payload queued by spool-enqueue into a new spool at `spool` and synced, then sent by `spool-send --once`
/// (timed); the spool is removed after.
private func uploadThroughSpool(_ config: Config, url: String, file: String, spool: String) -> Finished {
    // Made by spool-ctl, not by this process, which would keep the spool's folders open: the file system
    // must be free to unmount.
    precondition(run([config.binaries + "/spool-ctl", "--spool", spool, "init"]).status == 0, "spool-ctl init failed")
    defer { shell("rm -rf '\(spool)'") }
    let queued = run([config.binaries + "/spool-enqueue", "--spool", spool, "PUT", url, "--payload", file])
    precondition(queued.status == 0, "spool-enqueue --payload failed")
    shell("sync")
    let sent = run([config.binaries + "/spool-send", "--spool", spool, "--once"])
    precondition(sent.status == 0 && Fixtures.count(spool + "/new") == 0, "spool-send left the upload behind")
    return sent
}

/// An ext4 file system with mkfs.ext4's defaults (a journal), mounted with mount's defaults (no `discard`) from
/// an image file on a loop device: the file system most Linux installations hold their spool on. Its inode
/// tables and journal are written at once, not by the kernel in the background while the cases run.
enum DefaultExt4 {
    /// Makes and mounts one under `root`; nil where the machine cannot (not root, no losetup or mkfs.ext4).
    static func mount(under root: String) -> String? {
        guard getuid() == 0, which("mkfs.ext4") != nil, which("losetup") != nil else { return nil }
        let image = root + "/ext4.img", point = root + "/ext4"
        let made = shell(
            "truncate -s 2G '\(image)' && mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 '\(image)' && "
                + "mkdir -p '\(point)' && "
                + "mount -o loop '\(image)' '\(point)'")
        return made.status == 0 ? point : nil
    }

    /// Unmounts it (the loop device is released with it) so that the benchmark's clean-up can remove the image.
    static func unmount(_ point: String) {
        // Lazily when busy: the kernel may still be writing it back; it goes once that is done.
        shell("umount '\(point)' 2>/dev/null || umount -l '\(point)'")
    }
}
