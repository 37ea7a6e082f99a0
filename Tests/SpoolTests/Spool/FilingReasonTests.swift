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

/// The `ID.why` file: one writer, one reader, and a source name that survives any bytes.
@Suite struct FilingReasonTests {
    @Test func sourceNamesRoundTrip() {
        for bytes: [UInt8] in [Array("a:b,c@d".utf8), [0x41, 0x0A, 0x25, 0xFF, 0x20], Array("ü%".utf8)] {
            let encoded = FilingReason.encodeSource(FileName(bytes: bytes))
            #expect(!encoded.contains(" ") && !encoded.contains("\n"))
            #expect(FilingReason.decodeSource(Substring(encoded)) == FileName(bytes: bytes))
        }
    }

    @Test func whatIsWrittenIsReadBack() {
        let reason = FilingReason([
            ("reason", "the server rejected the write (HTTP 400)"), ("body", "line one\nline two"), ("attempts", "1")
        ])
        let source = FileName(bytes: Array("id:o=1,k=2@host,3,4,5".utf8))
        let fields = FilingReason.parse(reason.text(id: "id", folder: .failed, source: .cur, name: source, at: 0))
        #expect(fields.map(\.0) == ["id", "folder", "at", "source", "reason", "body", "attempts"])
        #expect(fields.first { $0.0 == "body" }?.1 == "line one\\nline two", "one field, one line")
        let found = FilingReason(fields).source
        #expect(found?.0 == .cur && found?.1 == source)
    }

    /// What the fuzzer found (Tests/Corpus/fuzz/head/body-starting-with-blanks): a server's body starting with
    /// blanks lost them when read back, and one starting with a combining mark kept the separator's space.
    @Test func valuesKeepTheirLeadingBlanksAndMarks() {
        let values = ["  b", "\u{301}x", " ", "", "a: b", "\tt"]
        let reason = FilingReason(values.enumerated().map { ("f\($0.offset)", $0.element) })
        let text = reason.text(id: "id", folder: .failed, source: .cur, name: FileName("n"), at: 0)
        let back = FilingReason.parse(text).suffix(values.count).map(\.1)
        #expect(back == values.map { $0.replacingControlCharacters() }, "\(back)")
    }
}
