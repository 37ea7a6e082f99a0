import Glibc
import SpoolTestSupport

/// Case 3b: https to nginx on 127.0.0.1 (HTTP/2 by ALPN), against bare URLSession and Python over TLS.
func benchSecureDelivery(_ report: Report, _ config: Config) {
    guard which("nginx") != nil, TestCertificates.shared != nil else {
        report.line("https delivery: n/a: needs nginx and openssl")
        return
    }
    let server = BenchServer(nginx: "location / { return 204; }", tls: true)
    defer { server.stop() }
    let n = config.deliveryCount
    report.section("3b. Delivery of \(n) operations over https to \(server.name) on 127.0.0.1, concurrency 4")
    let trust = ["--cacert", TestCertificates.shared!.caFile]
    // Rounds of one run of each contestant, as in case 3: the machine's drift over minutes weighs on all alike.
    var four: [Double] = [], dropped: [Double] = [], python: [Double] = [], curl: [Double] = [], floor: [Double] = []
    for _ in 0..<config.repetitions {
        four.append(spoolRate(server.base, n, 4, config, extra: trust))
        dropped.append(spoolRate(server.base, n, 4, config, plainNames: true, extra: trust))
        python.append(pythonLoop(base: server.base, count: n))
        curl.append(curlParallel(base: server.base, count: n, concurrency: 4))
        floor.append(fileFloor(base: server.base, count: n).rate)
    }
    // Fewer requests: URLSession manages a few dozen a second here (libcurl reloads the CA file per request).
    let session = Stats(
        values: (0..<config.repetitions).map { _ in
            bareURLSessionLoop(base: server.base, count: config.curlCount, concurrency: 4)
        })
    let s = Stats(values: four), py = Stats(values: python), bare = Stats(values: curl), files = Stats(values: floor)
    report.add(
        "https delivery, concurrency 4, ops/s", spool: describe(s, "/s"),
        baseline: "bare URLSession " + describe(session, "/s"),
        ratio: s.median / session.median, target: ">= 3x bare URLSession", met: s.median >= 3 * session.median)
    report.add(
        "https delivery, concurrency 4, ops/s", spool: describe(s, "/s"),
        baseline: "Python http.client over TLS " + describe(py, "/s"),
        ratio: s.median / py.median, target: ">= 2x Python loop", met: s.median >= 2 * py.median)
    report.add(
        "https delivery, concurrency 4, ops/s", spool: describe(s, "/s"),
        baseline: "bare libcurl (curl --parallel) " + describe(bare, "/s"),
        ratio: s.median / bare.median, target: ">= 0.8x bare libcurl", met: s.median >= 0.8 * bare.median)
    // What bounds the row above: curl's loop touches no file, and spool cannot go much past the file work.
    report.add(
        "https delivery, concurrency 4, ops/s", spool: describe(s, "/s"),
        baseline: "file floor (readdir, rename, read, unlink) " + describe(files, "/s"),
        ratio: s.median / files.median)
    let shell = Stats(values: dropped)
    report.add(
        "https delivery of shell-dropped files, ops/s", spool: describe(shell, "/s"),
        baseline: "Python http.client over TLS " + fmt(py.median) + " /s",
        ratio: shell.median / py.median, target: ">= 1.5x Python loop", met: shell.median >= 1.5 * py.median
    )
}

/// Case 3c: a 50 ms origin behind an https front, `--concurrency 64`, many keys: HTTP/2 on one connection
/// per sending thread and HTTP/1.1, against 80% of 64 / 0.05 s.
func benchFarOrigin(_ report: Report, _ config: Config) {
    guard which("nginx") != nil, TestCertificates.shared != nil else {
        report.line("50 ms origin: n/a: needs nginx and openssl")
        return
    }
    let slow = try! TestServer { _ in .delayed(0.05, 204) }
    defer { slow.stop() }
    let server = BenchServer(nginx: """
        location / { proxy_pass http://slow; proxy_http_version 1.1; proxy_set_header Connection ""; }
        """, tls: true, upstream: "upstream slow { server 127.0.0.1:\(slow.port); keepalive 256; }")
    defer { server.stop() }
    let (n, keys) = config.quick ? (2000, 200) : (10_000, 1000)
    report.section("3c. \(n) operations over \(keys) keys to a 50 ms origin behind nginx (https), concurrency 64")
    let ceiling = 64 / 0.05
    for (label, extra) in [("HTTP/2", [String]()), ("HTTP/1.1", ["--http1.1"])] {
        let finished = spoolRun(
            server.base, n, 64, config, extra: ["--cacert", TestCertificates.shared!.caFile] + extra, keys: keys)
        let rate = Double(n) / finished.seconds, cpu = finished.cpuSeconds
        let seen = server.connectionsLogged()
        report.add(
            "50 ms origin, \(label), ops/s", spool: fmt(rate) + " /s",
            baseline:
                "64 / 50 ms = \(fmt(ceiling)) /s; \(seen.connections) connection(s), "
                    + "\(seen.protocols.sorted().joined(separator: " "))",
            ratio: rate / ceiling, target: ">= 0.80x", met: rate >= 0.8 * ceiling)
        report.add(
            "50 ms origin, \(label), CPU per operation", spool: format1(cpu / Double(n) * 1e6, 0) + " µs",
            baseline: "-", ratio: nil)
    }
}
