import Testing
@testable import SpoolDocument

/// The JSON reader against RFC 8259's grammar, one test per class of text: what is JSON is read, what is not
/// is refused with the reason and the byte where it went wrong. Two readers of one document (a producer's
/// `jq`, spool) must never see two different operations, so where the RFC leaves a choice spool refuses.
@Suite struct RFC8259Tests {
    func read(_ bytes: [UInt8]) -> Result<JSON, JSONError> {
        Result { () throws(JSONError) in try JSON.parse(bytes) }
    }

    func read(_ text: String) -> Result<JSON, JSONError> { read(Array(text.utf8)) }

    func refusal(_ text: String) -> JSONError? {
        if case let .failure(error) = read(text) { return error }
        return nil
    }

    /// number = [ minus ] int [ frac ] [ exp ]; int = zero / ( digit1-9 *DIGIT ). Kept as written, so a
    /// number too large for a Double (or an Int64) reaches the server digit for digit.
    @Test func numbers() throws {
        for text in [
            "0", "-0", "7", "-7", "10", "1.5", "0.25", "-0.0", "1e5", "1E5", "1e+5", "1e-5", "1.5E-10", "1e400",
            "123456789012345678901234567890", "-9223372036854775809",
        ] {
            #expect(try read("[\(text)]").get() == .array([.number(text)]), "\(text)")
        }
        for text in ["01", "-01", "00", "1.", "-", "--1", "1e", "1e+", "1E-", "1.e5", "-.5"] {
            #expect(refusal(text) == .invalidNumber(offset: 0), "\(text)")
        }
        for text in ["+1", ".5", "NaN", "Infinity", "-Infinity", "0x10"] {
            let error = refusal(text)
            #expect(error != nil, "\(text) was read")
            #expect(error != .unexpectedEnd, "\(text)")
        }
    }

    /// A string's characters U+0000 to U+001F must be escaped; DEL and everything above it need not be.
    @Test func controlCharactersInStrings() throws {
        for byte in UInt8(0)...0x1F {
            let text: [UInt8] = [0x22, 0x61, byte, 0x22]
            #expect(read(text).failure == .unexpectedCharacter(offset: 2), "byte \(byte)")
        }
        #expect(try read([0x22, 0x7F, 0x22]).get() == .string("\u{7F}"))
        #expect(try read(#""\u0000\u001f""#).get() == .string("\u{0}\u{1F}"), "escaped, any is allowed")
    }

    /// The two-character escapes, `\u` with four hex digits either case, and nothing else.
    @Test func escapes() throws {
        #expect(try read(#""\"\\\/\b\f\n\r\t""#).get() == .string("\"\\/\u{8}\u{C}\n\r\t"))
        #expect(try read(#""\u00E9\u00e9""#).get() == .string("éé"))
        for text in [#""\a""#, #""\x41""#, #""\U0041""#, #""\'""#, #""\0""#] {
            #expect(refusal(text) == .invalidEscape(offset: 1), "\(text)")
        }
        #expect(refusal(#""\u00G0""#) == .invalidEscape(offset: 5), "at the digit that is none")
    }

    /// Surrogates: a pair is one character; a lone half, a reversed pair or a half followed by anything else
    /// is no character at all, and is refused rather than replaced (a replaced text is a different operation).
    @Test func surrogates() throws {
        #expect(try read(#""\ud83d\ude00""#).get() == .string("😀"))
        #expect(try read(#""\uD834\uDD1E""#).get() == .string("𝄞"))
        for text in [
            #""\ud83d""#, #""\ude00""#, #""\ude00\ud83d""#, #""\ud83d\u0041""#, #""\ud83dx""#, #""\ud83d\n""#,
            #""\ud83d\ud83d""#,
        ] {
            #expect(refusal(text) == .invalidEscape(offset: 1), "\(text)")
        }
    }

    /// A JSON text is UTF-8 (RFC 8259 §8.1): every ill-formed sequence is refused with its offset, including
    /// overlong forms, encoded surrogates and code points above U+10FFFF, which some decoders let through.
    @Test func invalidUTF8() throws {
        let cases: [([UInt8], Int)] = [
            ([0x22, 0x80, 0x22], 1),  // a lone continuation byte
            ([0x22, 0xC0, 0xAF, 0x22], 1),  // overlong "/"
            ([0x22, 0xE0, 0x80, 0xAF, 0x22], 1),  // overlong, three bytes
            ([0x22, 0xED, 0xA0, 0x80, 0x22], 1),  // U+D800 encoded
            ([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], 1),  // U+110000
            ([0x22, 0x61, 0xE2, 0x82, 0x22], 2),  // truncated "€"
            ([0x22, 0xFF, 0x22], 1), ([0x22, 0xFE, 0x22], 1),
            ([0x7B, 0x22, 0xC3, 0x22, 0x3A, 0x31, 0x7D], 2),  // in a key
        ]
        for (bytes, offset) in cases {
            #expect(read(bytes).failure == .invalidUTF8(offset: offset), "\(bytes)")
        }
        #expect(try read([0x22, 0xF0, 0x9F, 0x98, 0x80, 0x22]).get() == .string("😀"))
    }

    /// true, false and null, in lower case and whole.
    @Test func literals() throws {
        #expect(try read("[true,false,null]").get() == .array([.bool(true), .bool(false), .null]))
        for text in ["True", "TRUE", "nul", "fals", "t"] {
            #expect(refusal(text) != nil, "\(text)")
        }
        #expect(refusal("nulls") == .trailingText(offset: 4))
        #expect(refusal("truefalse") == .trailingText(offset: 4))
    }

    /// Space, tab, LF and CR around any token, and no other space: not a form feed, a vertical tab, a
    /// no-break space or a byte order mark inside the text. A leading byte order mark is ignored (§8.1 allows it).
    @Test func whitespace() throws {
        #expect(try read(" \t\r\n{ \t\r\n\"a\" \t\r\n: \t\r\n[ 1 , 2 ] \t\r\n} \t\r\n").get()
            == .object([("a", .array([.number("1"), .number("2")]))]))
        #expect(try read([0xEF, 0xBB, 0xBF] + Array("{}".utf8)).get() == .object([]))
        #expect(refusal("\u{0C}{}") == .unexpectedCharacter(offset: 0))
        #expect(refusal("{\u{0B}}") == .unexpectedCharacter(offset: 1))
        #expect(refusal("{}\u{A0}") == .trailingText(offset: 2))
        #expect(refusal("[1,\u{FEFF}2]") == .unexpectedCharacter(offset: 3))
    }

    /// Objects and arrays as the grammar draws them: no trailing comma, no missing one, names are strings,
    /// no comments, one value per text.
    @Test func structure() throws {
        let cases: [(String, JSONError)] = [
            ("", .unexpectedEnd), ("  ", .unexpectedEnd), ("[1,]", .unexpectedCharacter(offset: 3)),
            (#"{"a":1,}"#, .unexpectedCharacter(offset: 7)), ("[1 2]", .unexpectedCharacter(offset: 3)),
            (#"{"a" 1}"#, .unexpectedCharacter(offset: 5)), ("{a:1}", .unexpectedCharacter(offset: 1)),
            ("{1:1}", .unexpectedCharacter(offset: 1)), ("{'a':1}", .unexpectedCharacter(offset: 1)),
            ("['a']", .unexpectedCharacter(offset: 1)), ("[1]//c", .trailingText(offset: 3)),
            ("/*c*/[1]", .unexpectedCharacter(offset: 0)), ("1 2", .trailingText(offset: 2)),
            ("{}{}", .trailingText(offset: 2)), ("[", .unexpectedEnd), (#"{"a":"#, .unexpectedEnd),
            ("[1,", .unexpectedEnd), ("]", .unexpectedCharacter(offset: 0)), ("[,1]", .unexpectedCharacter(offset: 1)),
        ]
        for (text, error) in cases {
            #expect(refusal(text) == error, "\(text)")
        }
        // Any value is a JSON text (RFC 8259 §2); an operation must be an object, and says so.
        #expect(try read(#""alone""#).get() == .string("alone"))
        #expect(throws: OperationError.notAnObject(found: "string")) { try Operation(bytes: Array("\"x\"".utf8)) }
    }

    /// The RFC leaves duplicate names to the reader ("the behavior ... is unpredictable"): one reader takes the
    /// first, another the last, and the two would send different writes. spool refuses the document, at any
    /// depth, with names compared after their escapes are decoded (`"a"` and `"\u0061"` are one name) and as
    /// Unicode text (canonically equivalent names are one name).
    @Test func duplicateNames() throws {
        #expect(refusal(#"{"a":1,"a":1}"#) == .duplicateKey("a"))
        #expect(refusal(#"{"a":1,"\u0061":2}"#) == .duplicateKey("a"))
        #expect(refusal(#"{"x":{"b":1,"c":2,"b":3}}"#) == .duplicateKey("b"))
        #expect(refusal(#"[{"a":1},{"a":1,"a":1}]"#) == .duplicateKey("a"))
        #expect(read(#"[{"a":1},{"a":2}]"#).failure == nil, "the same name in two objects is no duplicate")
        #expect(read(#"{"a":1,"A":2,"a ":3}"#).failure == nil, "names are case- and space-sensitive")
        // Stricter than the RFC's code-unit comparison, on purpose: names that are one text in Unicode (an "é"
        // precomposed and an "e" with a combining accent) could be one name to another reader.
        #expect(refusal(#"{"\u00e9":1,"e\u0301":2}"#) == .duplicateKey("é"))
        // Short objects are compared name by name and long ones through a set: both ways, and across the switch.
        func object(_ names: [String]) -> String { "{" + names.map { "\"\($0)\":0" }.joined(separator: ",") + "}" }
        let many = (0..<30).map { "n\($0)" }
        #expect(read(object(many)).failure == nil)
        for (index, earlier) in [(15, 0), (16, 15), (16, 3), (25, 2), (29, 20)] {
            var names = many
            names[index] = names[earlier]
            #expect(refusal(object(names)) == .duplicateKey(names[earlier]), "member \(index) repeats member \(earlier)")
        }
        let method = #"{"method":"PUT","url":"https://example.com/a","method":"DELETE"}"#
        #expect(throws: OperationError.notJSON(.duplicateKey("method"))) { try Operation(bytes: Array(method.utf8)) }
    }

    /// Nesting counts arrays and objects alike, to the limit and not one level more.
    @Test func nestingDepth() throws {
        let deepest = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(read(deepest).failure == nil)
        let tooDeep = String(repeating: #"{"a":["#, count: 33) + String(repeating: "]}", count: 33)
        #expect(read(tooDeep).failure == .tooDeep(limit: 64))
        #expect(read(String(repeating: "[", count: 100_000)).failure == .tooDeep(limit: 64), "no stack overflow")
    }
}

extension Result {
    /// The error, when there is one.
    var failure: Failure? {
        if case let .failure(error) = self { return error }
        return nil
    }
}
