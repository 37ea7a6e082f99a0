import CCurl
import Testing
@testable import SpoolHTTP
@testable import SpoolTransport

/// The engine's mapping of a request and its settings to libcurl's options, checked option by option
/// (the servers in TLSTests, ProxyTests and QuirkTests prove that libcurl then does what they say).
@Suite struct CurlOptionsTests {
    static func request(_ method: String, _ url: String = "http://127.0.0.1:8080/item/1", body: [UInt8]? = nil,
                        headers: [(name: String, value: String)] = [], tls: TLSFiles = TLSFiles()) -> HTTPRequest {
        let origin = url.hasPrefix("https:") ? "https://example.test" : "http://127.0.0.1:8080"
        return HTTPRequest(method: method, url: url, headers: headers, body: body, origin: origin, tls: tls)
    }

    @Test func methodsAndBodies() {
        let settings = TransportSettings()
        let get = CurlOptions(Self.request("GET"), settings)
        #expect(get.method == .get && get.body == nil)
        let head = CurlOptions(Self.request("HEAD"), settings)
        #expect(head.method == .head && head.body == nil)
        // The methods that carry a body get an empty one rather than none: libcurl would otherwise wait for
        // a read callback, and a server would see no Content-Length.
        for method in ["PUT", "POST", "PATCH"] {
            let options = CurlOptions(Self.request(method), settings)
            #expect(options.method == .custom(method) && options.body == [], "\(method)")
        }
        let delete = CurlOptions(Self.request("DELETE"), settings)
        #expect(delete.method == .custom("DELETE") && delete.body == nil)
        // A GET with a body is sent as a custom GET with that body.
        let getWithBody = CurlOptions(Self.request("GET", body: Array("x".utf8)), settings)
        #expect(getWithBody.method == .custom("GET") && getWithBody.body == Array("x".utf8))
        let put = CurlOptions(Self.request("PUT", body: Array("{}".utf8)), settings)
        #expect(put.body == Array("{}".utf8))
        // A payload streams from its file under the operation's own method, timed by its stalls.
        var upload = Self.request("POST")
        upload.bodyFile = BodyFile(descriptor: 7, offset: 40, length: 1 << 30)
        let streamed = CurlOptions(upload, settings)
        #expect(streamed.method == .custom("POST") && streamed.body == nil && streamed.upload == upload.bodyFile)
        #expect(!streamed.boundsWholeTransfer && put.boundsWholeTransfer)
    }

    @Test func headersStopLibcurlsDefaults() {
        let plain = CurlOptions(
            Self.request("PUT", headers: [("Content-Type", "application/json"), ("X-Empty", "")]), TransportSettings())
        #expect(plain.headerLines == ["Content-Type: application/json", "X-Empty;", "Accept:", "Expect:"])
        let own = CurlOptions(
            Self.request("GET", headers: [("accept", "text/plain"), ("expect", "100-continue")]), TransportSettings())
        #expect(own.headerLines == ["accept: text/plain", "expect: 100-continue", "Content-Type:"])
        // Names match in any case, and only whole: Accept-Encoding is not Accept.
        let mixed = CurlOptions(
            Self.request("PUT", headers: [("ACCEPT", "x"), ("Accept-Encoding", "gzip")]), TransportSettings())
        #expect(mixed.headerLines == ["ACCEPT: x", "Accept-Encoding: gzip", "Expect:", "Content-Type:"])
    }

    @Test func versionAndMultiplexing() {
        var settings = TransportSettings()
        let https = Self.request("PUT", "https://example.test/a")
        #expect(CurlOptions(https, settings).waitsForMultiplexing)
        #expect(CurlOptions(https, settings).httpVersion == CCURL_HTTP_VERSION_2TLS)
        #expect(!CurlOptions(https, settings).checksReuse)
        let http = CurlOptions(Self.request("PUT"), settings)
        #expect(!http.waitsForMultiplexing && http.checksReuse, "no h2c: never wait on plain http")
        settings.version = .http1_1
        #expect(CurlOptions(https, settings).httpVersion == CCURL_HTTP_VERSION_1_1)
        #expect(!CurlOptions(https, settings).waitsForMultiplexing)
        // The origin's route (spool.conf) wins over the command line.
        var routed = https
        routed.route = Route(version: .automatic)
        #expect(CurlOptions(routed, settings).httpVersion == CCURL_HTTP_VERSION_2TLS)
    }

    /// Without a proxy in the environment, libcurl is told there is none, so it looks up no variable per
    /// request; with one, it is left to read them as curl does.
    @Test func theEnvironmentsProxyIsReadOnce() {
        #expect(CurlOptions.proxyOrNone(environment: { _ in nil }) == "")
        for name in ["http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"] {
            #expect(CurlOptions.proxyOrNone(environment: { $0 == name ? "http://proxy:3128" : nil }) == nil, "\(name)")
        }
        #expect(CurlOptions.proxyOrNone(environment: { $0 == "HTTP_PROXY" ? "http://proxy:3128" : nil }) == "",
                "curl ignores an upper-case HTTP_PROXY")
        var settings = TransportSettings()
        let request = Self.request("PUT", "http://example.test/a")
        settings.proxy = "http://cli-proxy:3128"
        #expect(CurlOptions(request, settings).noProxy == nil, "no_proxy is libcurl's to read beside a proxy")
    }

    @Test func filesAndProxiesInTheirOrder() {
        var settings = TransportSettings()
        settings.caFile = "/cli/ca.pem"
        settings.proxy = "http://cli-proxy:3128"
        settings.noProxy = "cli.example"
        settings.timeoutSeconds = 2.5
        var request = Self.request("PUT", "https://example.test/a")
        var options = CurlOptions(request, settings)
        #expect(
            options.caFile == "/cli/ca.pem" && options.proxy == "http://cli-proxy:3128"
                && options.noProxy == "cli.example")
        #expect(options.timeoutMilliseconds == 2500 && options.certificateFile == nil && options.keyFile == nil)
        request.route = Route(caFile: "/conf/ca.pem", proxy: "http://conf-proxy:3128", noProxy: "conf.example")
        options = CurlOptions(request, settings)
        #expect(
            options.caFile == "/conf/ca.pem" && options.proxy == "http://conf-proxy:3128"
                && options.noProxy == "conf.example")
        request.tls = TLSFiles(
            caFile: "/profile/ca.pem", certificateFile: "/profile/cert.pem", keyFile: "/profile/key.pem")
        options = CurlOptions(request, settings)
        #expect(
            options.caFile == "/profile/ca.pem" && options.certificateFile == "/profile/cert.pem"
                && options.keyFile == "/profile/key.pem")
        #expect(options.url == "https://example.test/a")
        #expect(options.maxSendBytesPerSecond == nil)
        settings.maxSendBytesPerSecond = 1000
        #expect(CurlOptions(request, settings).maxSendBytesPerSecond == 1000)
        request.route.maxSendBytesPerSecond = 500
        #expect(
            CurlOptions(request, settings).maxSendBytesPerSecond == 500, "the origin's max-rate goes over --max-rate")
    }
}
