import Foundation
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

/// spool.conf(5): read strictly, every error naming the file, the line and the key.
@Suite struct SpoolConfigurationTests {
    @Test func sectionsAndTheirDefaults() throws {
        let configuration = try SpoolConfiguration.parse("""
            # limits for everyone
            [default]
            max-concurrency = 8
            rate = 600/m   # ten a second

            handler-dir = /etc/spool/handlers
            max-payload = 4G
            max-rate = 500k

            [https://API.example.com:443]
            max-rate = 2M
            max-concurrency = 2
            initial-concurrency = 1
            burst = 5
            cacert = /etc/ssl/private/ca.pem
            proxy = http://proxy.example.com:3128
            noproxy = localhost,127.0.0.1
            http-version = 1.1
            """, path: "spool.conf")
        let api = configuration.settings(for: "https://api.example.com")
        #expect(api.maxConcurrency == 2 && api.initialConcurrency == 1 && api.rate == 10 && api.burst == 5)
        #expect(
            api.caFile == "/etc/ssl/private/ca.pem" && api.proxy == "http://proxy.example.com:3128"
                && api.version == .http1_1)
        let other = configuration.settings(for: "http://127.0.0.1:8080")
        #expect(other.maxConcurrency == 8 && other.rate == 10 && other.caFile == nil && other.version == nil)
        #expect(configuration.handlerDirectory == "/etc/spool/handlers")
        #expect(configuration.maxPayload == 4 << 30)
        #expect(api.maxSendBytesPerSecond == 2 << 20 && other.maxSendBytesPerSecond == 500 << 10)
        #expect(api.route.maxSendBytesPerSecond == 2 << 20)
    }

    @Test(arguments: [
        ("[default]\nmax-concurency = 4", "spool.conf line 2: unknown key 'max-concurency'"),
        (
            "[default]\nmax-concurrency = lots",
            "spool.conf line 2: max-concurrency = lots: expected an integer from 1 to 256"
        ),
        ("[default]\nrate = 10", "spool.conf line 2: rate = 10: expected requests per unit of time"),
        ("[default]\nmax-rate = fast", "spool.conf line 2: max-rate = fast: expected bytes per second"),
        (
            "[https://a.example]\nmax-payload = 1G",
            "spool.conf line 2: max-payload = 1G: expected a setting of [default]"
        ),
        ("max-concurrency = 4", "spool.conf line 1: 'max-concurrency' comes before any section"),
        ("[default]\n[default]", "spool.conf line 2: section [default] appears twice"),
        ("[https://a.example/path]", "spool.conf line 1: section [https://a.example/path] names an origin"),
        ("[ftp://a.example]", "spool.conf line 1: section [ftp://a.example] is neither"),
        ("[default]\njust words", "spool.conf line 2: neither '[section]' nor 'key = value'"),
        ("[default]\nburst = 2\nburst = 3", "spool.conf line 3: 'burst' is set twice"),
        ("[default]\ncacert = relative.pem", "spool.conf line 2: cacert = relative.pem: expected an absolute path"),
        ("[default]\nhandler-dir = handlers", "spool.conf line 2: handler-dir = handlers: expected an absolute path"),
        (
            "[https://a.example]\nhandler-dir = /etc/spool/handlers",
            "spool.conf line 2: handler-dir = /etc/spool/handlers: expected the key in [default] only"
        ),
        ("[default]\nhttp-version = 3", "spool.conf line 2: http-version = 3: expected 1.1")
    ])
    func errorsNameTheLineAndTheKey(text: String, message: String) {
        #expect(throws: ConfigurationError.self) { try SpoolConfiguration.parse(text, path: "spool.conf") }
        do { _ = try SpoolConfiguration.parse(text, path: "spool.conf") } catch {
            #expect(error.description.hasPrefix(message), "\(error.description)")
        }
    }

    /// A spool.conf saved with CRLF line ends (an editor on another system) reads as its LF twin, and a line
    /// error names the same line.
    @Test func crlfLineEndsReadAsLF() throws {
        let text = "[default]\nmax-concurrency = 8  # eight\n\n[https://api.example.com]\nrate = 600/m\nburst = 5\n"
        let crlf = text.replacingOccurrences(of: "\n", with: "\r\n")
        let (lf, dos) = try (SpoolConfiguration.parse(text, path: "a"), SpoolConfiguration.parse(crlf, path: "b"))
        for origin in ["https://api.example.com", "http://h"] {
            let (a, b) = (lf.settings(for: origin), dos.settings(for: origin))
            #expect(a.maxConcurrency == b.maxConcurrency && a.rate == b.rate && a.burst == b.burst)
        }
        #expect(dos.settings(for: "https://api.example.com").rate == 10)
        #expect(throws: ConfigurationError.self) { try SpoolConfiguration.parse("[default]\r\nnonsense\r\n", path: "c") }
        do {
            _ = try SpoolConfiguration.parse("[default]\r\n\r\nnonsense\r\n", path: "c")
            Issue.record("a line without '=' was accepted")
        } catch {
            #expect(error.description.contains("c line 3"), "\(error.description)")
        }
    }

    @Test func aFileOthersCanWriteIsRefused() throws {
        let temporary = TemporarySpool()
        let path = temporary.directory + "/spool.conf"
        try "[default]\nmax-concurrency = 2\n".write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o666)
        #expect(throws: ConfigurationError.writableByOthers(path: path, mode: 0o666)) {
            try SpoolConfiguration.load(path: path)
        }
        chmod(path, 0o644)
        #expect(try SpoolConfiguration.load(path: path).defaults.maxConcurrency == 2)
        symlink(path, temporary.directory + "/link.conf")
        #expect(throws: ConfigurationError.notRegular(path: temporary.directory + "/link.conf")) {
            try SpoolConfiguration.load(path: temporary.directory + "/link.conf")
        }
    }
}
