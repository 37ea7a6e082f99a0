import Testing
@testable import SpoolDocument
@testable import SpoolSending
@testable import SpoolTransport

/// The request made for one attempt of an operation (`HTTPRequest+Operation.swift`): the headers spool adds,
/// and those a document's own headers stop, whatever the case of their names.
@Suite struct HTTPRequestTests {
    static func request(_ document: String, profile: Credentials.Profile = .init()) throws -> HTTPRequest {
        HTTPRequest(
            operation: try Operation(bytes: Array(document.utf8)), id: "a1", orderMicroseconds: 1,
            userAgent: "spool/1", profile: profile)
    }

    @Test func ourUserAgentAndContentTypeUnlessTheDocumentSetsThem() throws {
        let plain = try Self.request(#"{"method":"PUT","url":"http://h/a","body":{"n":1}}"#)
        #expect(plain.headers.map(\.name) == ["User-Agent", "Content-Type", "Idempotency-Key"])
        #expect(plain.headers[0].value == "spool/1" && plain.headers[1].value == "application/json")
        // Field names are case-insensitive (RFC 9110, 5.1): the document's, in any case, win.
        let own = try Self.request(
            #"{"method":"PUT","url":"http://h/a","body":{"n":1},"headers":{"user-AGENT":"mine/2","CONTENT-TYPE":"x/y"}}"#)
        #expect(own.headers.map(\.name) == ["user-AGENT", "CONTENT-TYPE", "Idempotency-Key"])
        // Only a whole name counts: User-Agent-Extra is not User-Agent.
        let longer = try Self.request(#"{"method":"PUT","url":"http://h/a","headers":{"User-Agent-Extra":"1"}}"#)
        #expect(longer.headers.map(\.name) == ["User-Agent-Extra", "User-Agent", "Idempotency-Key"])
    }

    @Test func aProfilesHeadersComeLastAndReplaceTheDocumentsOfTheSameName() throws {
        var profile = Credentials.Profile()
        profile.headers = [("X-Api-Key", "secret")]
        let request = try Self.request(
            #"{"method":"PUT","url":"http://h/a","headers":{"x-api-key":"mine","X-Other":"1"}}"#, profile: profile)
        #expect(request.headers.map(\.name) == ["X-Other", "User-Agent", "Idempotency-Key", "X-Api-Key"])
        #expect(request.headers.last?.value == "secret")
    }
}
