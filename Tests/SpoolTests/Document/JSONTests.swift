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

@Suite struct JSONTests {
    @Test func roundTripKeepsOrderAndNumbers() throws {
        let text = #"{"b":1.50,"a":[true,null,"x\n\u00e9"],"c":{}}"#
        #expect(try JSON.parse(text).text == #"{"b":1.50,"a":[true,null,"x\né"],"c":{}}"#)
    }

    @Test func stringsWithAndWithoutEscapes() throws {
        let cases: [(String, String)] = [
            (#""plain ascii""#, "plain ascii"), (#""é€😀""#, "é€😀"), (#""""#, ""),
            (#""a\"b\\c\/d""#, #"a"b\c/d"#), (#""\b\f\n\r\t""#, "\u{08}\u{0C}\n\r\t"),
            (#""x\u00e9y\u20acz\ud83d\ude00""#, "xéy€z😀"), (#""é\n€""#, "é\n€"),
        ]
        for (text, expected) in cases {
            #expect(try JSON.parse(text) == .string(expected), "\(text)")
        }
        for (text, error) in [
            (#""\ud83d""#, JSONError.invalidEscape(offset: 1)), (#""\udc00""#, .invalidEscape(offset: 1)),
            (#""a\q""#, .invalidEscape(offset: 2)), ("\"a\u{01}\"", .unexpectedCharacter(offset: 2)),
            (#""abc"#, .unexpectedEnd), (#""a\"#, .unexpectedEnd), (#""\u12"#, .unexpectedEnd),
        ] {
            #expect(throws: error, "\(text)") { try JSON.parse(text) }
        }
    }
}
