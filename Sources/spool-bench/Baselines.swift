import Dispatch
import Foundation
import FoundationNetworking
import Glibc
import Spool
import SpoolConfiguration
import SpoolControl
import SpoolDocument
import SpoolHTTP
import SpoolHandlers
import SpoolNames
import SpoolQueue
import SpoolReporting
import SpoolSending
import SpoolSystem
import SpoolTestSupport
import SpoolTransport
#if canImport(FoundationNetworking)
#endif

/// N PUT requests with URLSession and nothing else, `concurrency` in flight. For https, the bench CA is
/// trusted through swift-corelibs-foundation's `URLSessionCertificateAuthorityInfoFile`.
func bareURLSessionLoop(base: String, count: Int, concurrency: Int) -> Double {
    if let ca = TestCertificates.shared?.caFile { setenv("URLSessionCertificateAuthorityInfoFile", ca, 1) }
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

/// N PUT requests through spool's HTTP engine (CurlTransport) and nothing else, `concurrency` in flight.
func bareClientLoop(base: String, count: Int, concurrency: Int) -> Double {
    var settings = TransportSettings()
    settings.connectionsPerOrigin = concurrency
    settings.caFile = TestCertificates.shared?.caFile
    let client = CurlTransport(settings: settings)
    let body = Array(Fixtures.document(0, base: base).utf8)
    let done = DispatchSemaphore(value: 0)
    let start = now()
    Task {
        await withTaskGroup(of: Void.self) { group in
            var next = 0
            func request(_ i: Int) -> HTTPRequest {
                var r = HTTPRequest(
                    operation: try! Operation(bytes: Array(#"{"method":"PUT","url":"\#(base)/item/\#(i)"}"#.utf8)),
                    id: "b\(i)",
                    orderMicroseconds: 0, userAgent: "bench")
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

/// The same N PUTs with the curl program's own parallel mode: libcurl's multi interface, no spool.
func curlParallel(base: String, count: Int, concurrency: Int) -> Double {
    Double(count) / curlParallelRun(base: base, count: count, concurrency: concurrency).seconds
}

/// One run of `curlParallel`, with its CPU time.
func curlParallelRun(base: String, count: Int, concurrency: Int) -> Finished {
    let body = Fixtures.bareDirectory() + "/body"
    writeText(body, Fixtures.document(0, base: base))
    let trust = base.hasPrefix("https") ? "--cacert '\(TestCertificates.shared!.caFile)'" : ""
    return shell("""
        curl -s -o /dev/null --parallel --parallel-immediate --parallel-max \(concurrency) \(trust) -X PUT --data-binary @'\(body)' '\(base)/item/[1-\(count)]'
        """)
}

/// One curl process per file, then rm: what people do without spool.
func curlPerFile(base: String, count: Int) -> Double {
    let dir = Fixtures.bareDirectory()
    for i in 0..<count { writeText("\(dir)/new/f\(i)", Fixtures.document(i, base: base)) }
    Fixtures.settle()
    let trust = base.hasPrefix("https") ? "--cacert '\(TestCertificates.shared!.caFile)'" : ""
    let finished = shell("""
        for f in "\(dir)"/new/*; do curl -s -o /dev/null \(trust) -X PUT --data-binary @"$f" "\(base)/item/1" && rm "$f"; done
        """)
    return Double(count) / finished.seconds
}

/// A Python user's twenty lines: rename-claim, read, PUT on one keep-alive connection, unlink.
func pythonLoop(base: String, count: Int) -> Double {
    let script = "\(Fixtures.root)/loop.py"
    writeText(script, pythonLoopScript)
    let dir = Fixtures.bareDirectory()
    for i in 0..<count { writeText("\(dir)/new/f\(i)", Fixtures.document(i, base: base)) }
    Fixtures.settle()
    let finished = run(["/usr/bin/env", "python3", script, dir, base, TestCertificates.shared?.caFile ?? ""])
    precondition(finished.status == 0 && Fixtures.count(dir + "/new") == 0, "the Python loop failed")
    return Double(count) / finished.seconds
}

let pythonLoopScript = """
    import http.client, os, ssl, sys, urllib.parse
    spool, base, ca = sys.argv[1], urllib.parse.urlsplit(sys.argv[2]), sys.argv[3]
    if base.scheme == "https":
        conn = http.client.HTTPSConnection(base.hostname, base.port, context=ssl.create_default_context(cafile=ca))
    else:
        conn = http.client.HTTPConnection(base.hostname, base.port)
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

/// Requests per second wrk reaches with `connections` keep-alive connections.
func wrk(base: String, connections: Int, seconds: Int) -> Double {
    let output = "\(Fixtures.root)/wrk-\(connections).txt"
    run([which("wrk")!, "-t1", "-c\(connections)", "-d\(seconds)s", base + "/item/1"], output: output)
    for line in readText(output).split(separator: "\n") where line.hasPrefix("Requests/sec:") {
        return Double(line.split(separator: " ").last!) ?? 0
    }
    return 0
}
