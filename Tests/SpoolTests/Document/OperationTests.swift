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

@Suite struct OperationTests {
    func operation(_ text: String) throws(OperationError) -> Operation { try Operation(bytes: Array(text.utf8)) }

    @Test func validDocumentIsRead() throws {
        let op = try operation(
            #"{"method":"PATCH","url":"HTTPS://Example.COM:443/a?b","headers":{"X-A":"1"},"body":[1],"depends_on":["a1"],"coalesce":true,"not_before":"2026-11-29T13:00:00+01:00","max_attempts":3,"auth":"prod.api"}"#
        )
        #expect(op.origin == "https://example.com")
        #expect(op.key == "HTTPS://Example.COM:443/a?b")
        #expect(op.body == Array("[1]".utf8))
        #expect(op.bodyIsJSON)
        #expect(op.notBefore == 1_795_953_600)
        #expect(op.maxAttempts == 3)
        #expect(op.dependsOn == ["a1"])
    }

    @Test func badDocumentsAreRejectedWithTheField() {
        let cases: [(String, OperationError)] = [
            (#"{"url":"http://h/"}"#, .missingField("method")),
            (
                #"{"method":"PUT","url":"http://h/","max_attempts":1e9}"#,
                .outOfRange(field: "max_attempts", value: "1e9", range: Operation.maxAttemptsRange)
            ),
            (
                #"{"method":"PUT","url":"http://h/","headers":{"Content-Length":"5"}}"#,
                .forbiddenHeader("Content-Length", why: "the length comes from the body")
            ),
            (#"{"method":"PUT","url":"http://h/","headers":{"X":"a\r\nB: c"}}"#, .invalidHeaderValue(name: "X")),
            (
                #"{"method":"PUT","url":"http://h/","headers":{"Authorization":"Bearer t0ken"}}"#,
                .forbiddenHeader(
                    "Authorization",
                    why: "a secret must not be written into the spool: name an auth profile with \"auth\"")
            ),
            (
                #"{"method":"PUT","url":"http://h/","body":"a","body_base64":"YQ=="}"#,
                .conflictingFields("body", "body_base64")
            ),
            (
                #"{"method":"PUT","url":"http://user:pw@h/"}"#,
                .invalidURL(
                    "http://user:pw@h/",
                    why: "carries credentials; name a profile with \"auth\" instead, so no secret enters the spool")
            ),
            (
                #"{"method":"PUT","url":"http://h/","expires_at":"tomorrow"}"#,
                .invalidDate(field: "expires_at", value: "tomorrow")
            )
        ]
        for (text, expected) in cases {
            #expect(throws: expected, "\(text)") { try operation(text) }
        }
        #expect(throws: OperationError.notJSON(.duplicateKey("url"))) {
            try operation(#"{"method":"PUT","url":"http://h/","url":"http://i/"}"#)
        }
        #expect(throws: OperationError.notJSON(.tooDeep(limit: 64))) {
            try operation(String(repeating: "[", count: 100))
        }
        #expect(throws: OperationError.notJSON(.invalidUTF8(offset: 2))) { try Operation(bytes: [0x7B, 0x22, 0xFF]) }
    }

    @Test func timestampsAndBase64() {
        #expect(Timestamp.parseRFC3339("1970-01-01T00:00:00Z") == 0)
        #expect(Timestamp.parseRFC3339("2026-02-30T00:00:00Z") == nil)
        #expect(Timestamp.formatRFC3339(1_764_417_600) == "2025-11-29T12:00:00Z")
        #expect(Base64.decode("aGVsbG8=") == Array("hello".utf8))
        #expect(Base64.encode(Array("hello".utf8)) == "aGVsbG8=")
        #expect(Base64.decode("a=bc") == nil)
    }

    @Test func originsOfURLs() throws {
        for (url, origin) in [
            ("https://Example.COM/a", "https://example.com"), ("HTTP://h:80/x", "http://h"),
            ("https://h:443", "https://h"), ("https://h:8443?q#f", "https://h:8443"), ("http://h#x", "http://h"),
            ("http://[::1]:8080/p", "http://[::1]:8080"), ("http://[::1]/p", "http://[::1]"),
            // Leading zeros are dropped, as curl reads the number: one origin, one window.
            ("http://h:0080/x", "http://h"), ("http://h:08080/x", "http://h:8080"),
            ("https://h:65535", "https://h:65535"),
            ("http://h:000000000000000000080/", "http://h"),
        ] {
            #expect(try Operation.origin(of: url) == origin, "\(url)")
        }
        for (url, why) in [
            ("ftp://h/x", "has scheme \"ftp\""), ("h/x", "has no scheme"), ("http://u:p@h/", "carries credentials"),
            ("http://[::1/", "unterminated IPv6"), ("http://[::1]x/", "text after its IPv6"),
            ("http:///x", "has no host"), ("http://h:/x", "invalid port"), ("http://h:99999", "invalid port"),
            ("http://[::1]:/", "invalid port"), ("http://h/a b", "contains spaces"), ("http://:80/", "has no host"),
            ("http://h:+80/", "invalid port"), ("http://h:0/", "invalid port"), ("http://h:65536/", "invalid port"),
            ("http://h:8o/", "invalid port"),
        ] {
            #expect(throws: (any Error).self) { try Operation.origin(of: url) }
            do { _ = try Operation.origin(of: url) } catch { #expect("\(error)".contains(why), "\(url): \(error)") }
        }
    }
}
