import Foundation
import SpoolHTTP
import SpoolSystem
import SpoolTransport
import Testing

/// The engine's thread is the lanes' executor: a task that prefers it runs there before and after each
/// request, so that handing a request over and getting its answer back wakes no other thread.
@Suite struct CurlTransportTests {
    @Test(.enabled(if: Nginx.binary != nil, "needs nginx (Debian's nginx-light); .ci/run installs it"))
    func lanesRunOnTheEnginesThread() async throws {
        let nginx = try Nginx(tls: false, locations: "location / { return 204; }")
        let transport = CurlTransport(settings: TransportSettings())
        let origin = "http://127.0.0.1:\(nginx.port)"
        let seen = await withTaskGroup(of: [String].self) { group in
            for lane in 0..<4 {
                group.addTask(executorPreference: transport.laneExecutor) {
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
}
