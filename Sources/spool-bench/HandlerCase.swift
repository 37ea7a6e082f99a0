import Glibc

/// Case 7: jobs through a trivial handler (it reads its input and exits 0), against a shell loop running the
/// same handler once per job with the same input.
func benchHandlers(_ report: Report, _ config: Config) {
    let n = config.handlerJobs
    report.section("7. \(n) handler jobs through a trivial handler")
    let handlers = Fixtures.bareDirectory() + "/handlers"
    mkdir(handlers, 0o755)
    writeText("\(handlers)/trivial", "#!/bin/sh\ncat >/dev/null\n")
    chmod("\(handlers)/trivial", 0o755)
    func spoolRate(concurrency: Int) -> Double {
        let spool = Fixtures.spool()
        for i in 0..<n {
            let document =
                #"{"handler":"trivial","key":"job-\#(i)","body":"\#(Fixtures.body)","idempotency_key":"bench-\#(i)"}"#
            writeText("\(spool)/new/j\(i)", document + "\n")
        }
        let finished = run([
            "\(config.binaries)/spool-send", "--spool", spool, "--once", "--handler-dir", handlers, "--concurrency",
            "\(concurrency)"
        ])
        precondition(
            finished.status == 0 && Fixtures.count(spool + "/new") == 0,
            "spool-send left handler jobs behind in \(spool)")
        return Double(n) / finished.seconds
    }
    let loop = Stats(
        values: (0..<config.repetitions).map { _ in
            let finished = shell(
                "i=0; while [ $i -lt \(n) ]; do printf %s '\(Fixtures.body)' | '\(handlers)/trivial'; i=$((i + 1)); "
                    + "done"
            )
            return Double(n) / finished.seconds
        })
    for concurrency in [1, 4] {
        let s = Stats(values: (0..<config.repetitions).map { _ in spoolRate(concurrency: concurrency) })
        report.add(
            "handler jobs, concurrency \(concurrency), jobs/s", spool: describe(s, "/s"),
            baseline: "shell loop " + describe(loop, "/s"),
            ratio: s.median / loop.median, target: concurrency == 1 ? ">= 0.5x shell loop" : "",
            met: concurrency == 1 ? s.median >= 0.5 * loop.median : nil)
    }
}
