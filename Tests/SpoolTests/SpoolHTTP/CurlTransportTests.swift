import Foundation
import SpoolHTTP
import SpoolTestSupport
import SpoolSystem
import SpoolTransport
import Testing

/// The engine's thread is the lanes' executor: a task that prefers it runs there before and after each
/// request, so that handing a request over and getting its answer back wakes no other thread. Easy handles
/// are reset and used again, and carry nothing of one request into the next.
@Suite struct CurlTransportTests {
    @Test func aHandleUsedAgainCarriesNothingOfTheLastRequest() async throws {
        let server = try TestServer { _ in .respond(204, [:], "") }
        defer { server.stop() }
        let transport = CurlTransport(settings: TransportSettings())
        let origin = server.baseURL
        // One after another on the engine's thread, whose next turn comes after the last transfer gave its
        // handle back: each takes the handle of the one before.
        let requests = [
            HTTPRequest(
                method: "PUT", url: origin + "/one", headers: [("X-First", "1")], body: Array("first body".utf8),
                origin: origin, tls: TLSFiles()),
            HTTPRequest(method: "GET", url: origin + "/two", headers: [], body: nil, origin: origin, tls: TLSFiles()),
            HTTPRequest(
                method: "DELETE", url: origin + "/three", headers: [("X-Third", "3")], body: nil, origin: origin,
                tls: TLSFiles()),
        ]
        await withTaskExecutorPreference(transport.laneExecutor(slot: 0)) {
            for request in requests {
                let result = await transport.send(request)
                guard case let .success(response) = result, response.status == 204 else {
                    Issue.record("\(request.method) \(request.url): \(result)")
                    return
                }
            }
        }
        let seen = server.requests.map { ($0.method, $0.path, $0.header("X-First"), $0.header("X-Third"), $0.text) }
        try #require(seen.count == 3, "the server received \(seen.count) requests")
        #expect(seen[0] == ("PUT", "/one", "1", nil, "first body"))
        #expect(seen[1] == ("GET", "/two", nil, nil, ""), "the PUT's method, header and body stayed behind")
        #expect(seen[2] == ("DELETE", "/three", nil, "3", ""))
    }

    @Test(.enabled(if: Nginx.binary != nil, "needs nginx (Debian's nginx-light); .ci/run installs it"))
    func lanesRunOnTheEnginesThread() async throws {
        let nginx = try Nginx(tls: false, locations: "location / { return 204; }")
        let transport = CurlTransport(settings: TransportSettings())
        let origin = "http://127.0.0.1:\(nginx.port)"
        let seen = await withTaskGroup(of: [String].self) { group in
            for lane in 0..<4 {
                group.addTask(executorPreference: transport.laneExecutor(slot: lane)) {
                    var names: [String] = []
                    for index in 0..<5 {
                        let request = HTTPRequest(
                            method: "PUT", url: "\(origin)/item/\(lane)-\(index)", headers: [], body: Array("x".utf8),
                            origin: origin, tls: TLSFiles())
                        let result = await transport.send(request)
                        names.append(ThreadName.current)
                        guard case let .success(response) = result, response.status == 204 else {
                            Issue.record("lane \(lane), request \(index): \(result)")
                            return names
                        }
                    }
                    return names
                }
            }
            return await group.reduce(into: []) { $0 += $1 }
        }
        #expect(seen.count == 20)
        #expect(Set(seen) == [CurlTransport.threadName])
        // The server's own record: every request reached it.
        let logged = eventually(within: 5) {
            nginx.accessLog.filter { $0.fields.count > 3 && $0.method == "PUT" && $0.path.hasPrefix("/item/") }.count == 20
        }
        #expect(logged, "nginx logged \(nginx.accessLog.count) requests")
    }

    /// With two threads, lanes are dealt out to them in turn, and a lane stays on its thread from one request
    /// to the next: its requests cross no thread.
    @Test(.enabled(if: Nginx.binary != nil, "needs nginx (Debian's nginx-light); .ci/run installs it"))
    func lanesAreDealtOutToTheThreads() async throws {
        let nginx = try Nginx(tls: false, locations: "location / { return 204; }")
        var settings = TransportSettings()
        settings.threads = 2
        let transport = CurlTransport(settings: settings)
        #expect(transport.threads == 2)
        let origin = "http://127.0.0.1:\(nginx.port)"
        let threads = await withTaskGroup(of: (Int, Set<UInt>).self) { group in
            for lane in 0..<4 {
                group.addTask(executorPreference: transport.laneExecutor(slot: lane)) {
                    var seen = Set<UInt>()
                    for index in 0..<5 {
                        let request = HTTPRequest(
                            method: "PUT", url: "\(origin)/item/\(lane)-\(index)", headers: [], body: Array("x".utf8),
                            origin: origin, tls: TLSFiles())
                        let result = await transport.send(request)
                        seen.insert(UInt(pthread_self()))
                        #expect(ThreadName.current == CurlTransport.threadName)
                        guard case let .success(response) = result, response.status == 204 else {
                            Issue.record("lane \(lane), request \(index): \(result)")
                            return (lane, seen)
                        }
                    }
                    return (lane, seen)
                }
            }
            return await group.reduce(into: [Int: Set<UInt>]()) { $0[$1.0] = $1.1 }
        }
        #expect(threads.values.allSatisfy { $0.count == 1 }, "a lane changed threads: \(threads)")
        #expect(threads[0] == threads[2] && threads[1] == threads[3], "dealt in turn: \(threads)")
        #expect(threads[0] != threads[1], "two threads: \(threads)")
        let logged = eventually(within: 5) {
            nginx.accessLog.filter { $0.fields.count > 3 && $0.method == "PUT" && $0.path.hasPrefix("/item/") }.count == 20
        }
        #expect(logged, "nginx logged \(nginx.accessLog.count) requests")
    }
}
