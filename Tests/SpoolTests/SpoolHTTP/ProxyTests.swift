import Foundation
import SpoolTestSupport
import Testing
@testable import Spool
@testable import SpoolSystem
@testable import SpoolTransport
@testable import SpoolNames
@testable import SpoolDocument
@testable import SpoolConfiguration
@testable import SpoolQueue
@testable import SpoolHandlers
@testable import SpoolSending
@testable import SpoolReporting
@testable import SpoolControl

/// Proxies as curl reads them, for http and https alike, through Debian's tinyproxy: its own log shows the
/// absolute-form request for http and the CONNECT for https.
@Suite(.enabled(if: Tinyproxy.binary != nil && Nginx.binary != nil && TestCertificates.shared != nil,
                "needs tinyproxy, nginx and openssl (.ci/run installs them)"))
struct ProxyTests {
    let certificates = TestCertificates.shared!

    @Test func environmentProxiesCarryBothSchemesAndNoProxyBypasses() throws {
        let proxy = try Tinyproxy()
        let plain = try TestServer { _ in .respond(204, [:], "") }
        defer { plain.stop() }
        let secure = try Nginx(tls: true, locations: "location / { return 204; }")
        let spool = TemporarySpool()
        try spool.enqueue(["PUT", plain.baseURL + "/plain", "--body", "a"])
        try spool.enqueue(["PUT", "https://127.0.0.1:\(secure.port)/secure", "--body", "b"])
        try spool.send(
            ["--cacert", certificates.caFile],
            environment: ["http_proxy": proxy.url, "https_proxy": proxy.url, "no_proxy": ""])
        #expect(spool.names("new").isEmpty)
        #expect(proxy.log.contains("Request (file descriptor"), "\(proxy.log)")
        #expect(proxy.log.contains("PUT \(plain.baseURL)/plain HTTP/1.1"))
        #expect(proxy.log.contains("CONNECT 127.0.0.1:\(secure.port)"))
        #expect(plain.requests.map(\.path) == ["/plain"])
        #expect(secure.accessLog.map(\.path) == ["/secure"])

        try spool.enqueue(["PUT", plain.baseURL + "/direct"])
        try spool.send([], environment: ["http_proxy": proxy.url, "no_proxy": "127.0.0.1"])
        #expect(plain.requests.map(\.path) == ["/plain", "/direct"])
        #expect(!proxy.log.contains("/direct"), "no_proxy bypasses the proxy")

        // The engine reads the variables once, not libcurl at every request: the last of curl's list still counts.
        try spool.enqueue(["PUT", plain.baseURL + "/all"])
        try spool.send([], environment: ["ALL_PROXY": proxy.url])
        #expect(proxy.log.contains("PUT \(plain.baseURL)/all HTTP/1.1"), "\(proxy.log)")
        #expect(plain.requests.map(\.path) == ["/plain", "/direct", "/all"])
    }

    @Test func proxyOptionsOverrideTheEnvironment() throws {
        let proxy = try Tinyproxy()
        let server = try TestServer { _ in .respond(204, [:], "") }
        defer { server.stop() }
        let spool = TemporarySpool()
        try spool.enqueue(["PUT", server.baseURL + "/through"])
        try spool.send(["--proxy", proxy.url], environment: ["http_proxy": "http://127.0.0.1:\(TestServer.deadPort())"])
        #expect(proxy.log.contains("PUT \(server.baseURL)/through HTTP/1.1"))
        try spool.enqueue(["PUT", server.baseURL + "/around"])
        try spool.send(["--proxy", proxy.url, "--noproxy", "127.0.0.1"])
        #expect(server.requests.map(\.path) == ["/through", "/around"])
        #expect(!proxy.log.contains("/around"))
    }

    @Test func theServersAnswerCountsNotTheProxysTunnel() throws {
        let proxy = try Tinyproxy()
        let secure = try Nginx(tls: true, locations: "location /taken { return 409; } location / { return 204; }")
        let spool = TemporarySpool()
        let taken = try spool.enqueue(["PUT", "https://127.0.0.1:\(secure.port)/taken", "--body", "a"])
        try spool.send(["--cacert", certificates.caFile, "--proxy", proxy.url])
        #expect(proxy.log.contains("CONNECT 127.0.0.1:\(secure.port)"))
        #expect(spool.operations("conflict") == [taken], "the server's 409, not the proxy's 200 Connection established")
    }

    @Test func aProxyThatRefusesTheTunnelDefersWithoutSending() throws {
        let proxy = try Tinyproxy(connectPorts: [443])
        let secure = try Nginx(tls: true, locations: "location / { return 204; }")
        let spool = TemporarySpool()
        try spool.enqueue(["PUT", "https://127.0.0.1:\(secure.port)/x", "--body", "a"])
        let result = try spool.send(["--cacert", certificates.caFile, "--proxy", proxy.url, "-v"])
        #expect(secure.accessLog.isEmpty)
        #expect(spool.waiting().first?.state?.lastError == "network")
        #expect(result.stderr.contains("the proxy refused the tunnel"), "\(result.stderr)")
    }
}
