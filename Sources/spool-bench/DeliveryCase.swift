import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Glibc
import Spool
import SpoolHTTP

/// Case 3: delivery to a local keep-alive server, against the bare client, the server's ceiling, a curl
/// loop and a Python http.client loop.
func benchDelivery(_ report: Report, _ config: Config, _ server: BenchServer) {
    let n = config.deliveryCount
    report.section("3. Delivery of \(n) operations to \(server.name) on 127.0.0.1")
    var spoolAt: [Int: Double] = [:]
    for concurrency in [1, 4, 8] {
        var spoolRates: [Double] = [], bareRates: [Double] = [], clientRates: [Double] = []
        for _ in 0..<config.repetitions {
            let spool = Fixtures.spool()
            Fixtures.fill(spool, count: n, base: server.base)
            let finished = run(["\(config.binaries)/spool-send", "--spool", spool, "--once", "--concurrency", "\(concurrency)"])
            precondition(Fixtures.count(spool + "/new") == 0, "spool-send left operations behind")
            spoolRates.append(Double(n) / finished.seconds)
            bareRates.append(bareURLSessionLoop(base: server.base, count: n, concurrency: concurrency))
            clientRates.append(bareClientLoop(base: server.base, count: n, concurrency: concurrency))
        }
        let s = Stats(values: spoolRates), b = Stats(values: bareRates), c = Stats(values: clientRates)
        spoolAt[concurrency] = s.median
        report.add("delivery, concurrency \(concurrency), ops/s", spool: describe(s, "/s"), baseline: "spool's own HTTP client alone " + describe(c, "/s"),
                   ratio: s.median / c.median)
        report.add("delivery, concurrency \(concurrency), ops/s", spool: describe(s, "/s"), baseline: "bare URLSession " + describe(b, "/s"),
                   ratio: s.median / b.median, target: ">= 0.80x bare URLSession", met: s.median >= 0.8 * b.median)
        if which("wrk") != nil {
            let rate = wrk(base: server.base, connections: concurrency, seconds: config.wrkSeconds)
            report.add("delivery, concurrency \(concurrency), ops/s", spool: fmt(s.median) + " /s", baseline: "wrk (server ceiling) \(fmt(rate)) /s",
                       ratio: s.median / rate)
        } else {
            report.line("wrk: n/a: wrk not installed")
        }
    }

    // One curl process per file, then rm: what people do without spool.
    var curlRates: [Double] = []
    for _ in 0..<config.repetitions {
        let dir = Fixtures.bareDirectory()
        for i in 0..<config.curlCount { writeText("\(dir)/new/f\(i)", Fixtures.document(i, base: server.base)) }
        let finished = shell("""
            for f in "\(dir)"/new/*; do curl -s -o /dev/null -X PUT --data-binary @"$f" "\(server.base)/item/1" && rm "$f"; done
            """)
        curlRates.append(Double(config.curlCount) / finished.seconds)
    }
    let curl = Stats(values: curlRates)
    report.add("delivery, default concurrency 4, ops/s", spool: fmt(spoolAt[4]!) + " /s", baseline: "curl loop " + describe(curl, "/s"),
               ratio: spoolAt[4]! / curl.median, target: ">= 20x curl loop", met: spoolAt[4]! >= 20 * curl.median)

    // A Python user's twenty lines: rename-claim, read, PUT on one keep-alive connection, unlink.
    var pythonRates: [Double] = []
    let script = "\(Fixtures.root)/loop.py"
    writeText(script, pythonLoop)
    for _ in 0..<config.repetitions {
        let dir = Fixtures.bareDirectory()
        for i in 0..<n { writeText("\(dir)/new/f\(i)", Fixtures.document(i, base: server.base)) }
        let finished = run(["/usr/bin/env", "python3", script, dir, "127.0.0.1", "\(server.port)"])
        precondition(finished.status == 0 && Fixtures.count(dir + "/new") == 0, "the Python loop failed")
        pythonRates.append(Double(n) / finished.seconds)
    }
    let python = Stats(values: pythonRates)
    report.add("delivery, default concurrency 4, ops/s", spool: fmt(spoolAt[4]!) + " /s", baseline: "Python http.client loop " + describe(python, "/s"),
               ratio: spoolAt[4]! / python.median, target: ">= 1.5x Python loop", met: spoolAt[4]! >= 1.5 * python.median)
    report.add("delivery, concurrency 1, ops/s", spool: fmt(spoolAt[1]!) + " /s", baseline: "Python http.client loop " + fmt(python.median) + " /s",
               ratio: spoolAt[1]! / python.median)
}

let pythonLoop = """
    import http.client, os, sys
    spool, host, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
    conn = http.client.HTTPConnection(host, port)
    for name in sorted(os.listdir(os.path.join(spool, "new"))):
        claimed = os.path.join(spool, "cur", name)
        try:
            os.rename(os.path.join(spool, "new", name), claimed)
        except FileNotFoundError:
            continue
        with open(claimed, "rb") as f:
            body = f.read()
        conn.request("PUT", "/item/" + name, body=body, headers={"Idempotency-Key": name})
        response = conn.getresponse()
        response.read()
        if 200 <= response.status < 300:
            os.unlink(claimed)

    """

/// N PUT requests with URLSession and nothing else, `concurrency` in flight: the client's own ceiling.
func bareURLSessionLoop(base: String, count: Int, concurrency: Int) -> Double {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.httpMaximumConnectionsPerHost = concurrency
    let session = URLSession(configuration: configuration)
    let slots = DispatchSemaphore(value: concurrency)
    let done = DispatchGroup()
    let body = Data(Fixtures.document(0, base: base).utf8)
    let start = now()
    for i in 0..<count {
        slots.wait()
        done.enter()
        var request = URLRequest(url: URL(string: "\(base)/item/\(i)")!)
        request.httpMethod = "PUT"
        request.httpBody = body
        session.dataTask(with: request) { _, _, _ in
            slots.signal()
            done.leave()
        }.resume()
    }
    done.wait()
    let rate = Double(count) / (now() - start)
    session.invalidateAndCancel()
    return rate
}

/// N PUT requests through spool's own HTTP client (SocketTransport) and nothing else, `concurrency` in flight.
func bareClientLoop(base: String, count: Int, concurrency: Int) -> Double {
    let client = SocketTransport(timeout: 30, connections: concurrency)
    let body = Array(Fixtures.document(0, base: base).utf8)
    let done = DispatchSemaphore(value: 0)
    let start = now()
    Task {
        await withTaskGroup(of: Void.self) { group in
            var next = 0
            func request(_ i: Int) -> HTTPRequest {
                var r = HTTPRequest(operation: try! Operation(bytes: Array(#"{"method":"PUT","url":"\#(base)/item/\#(i)"}"#.utf8)), id: "b\(i)", userAgent: "bench")
                r.body = body
                return r
            }
            for _ in 0..<concurrency where next < count {
                let r = request(next)
                next += 1
                group.addTask { _ = await client.send(r) }
            }
            while await group.next() != nil, next < count {
                let r = request(next)
                next += 1
                group.addTask { _ = await client.send(r) }
            }
        }
        done.signal()
    }
    done.wait()
    return Double(count) / (now() - start)
}

/// Requests per second wrk reaches with `connections` keep-alive connections.
func wrk(base: String, connections: Int, seconds: Int) -> Double {
    let output = "\(Fixtures.root)/wrk-\(connections).txt"
    run([which("wrk")!, "-t1", "-c\(connections)", "-d\(seconds)s", base + "/item/1"], output: output)
    for line in readText(output).split(separator: "\n") where line.hasPrefix("Requests/sec:") {
        return Double(line.split(separator: " ").last!) ?? 0
    }
    return 0
}
