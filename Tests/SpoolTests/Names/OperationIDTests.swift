import Testing
@testable import SpoolSystem
@testable import SpoolNames

/// The operation id rule, the reason a name breaks it, and the valid id made from any name to file it.
@Suite struct OperationIDTests {
    static let forbidden: [UInt8] = Array("/:@\\".utf8)

    @Test func validIds() {
        for id in ["a", "a.", "why", "a.whyx", "a.WHY", "job-1.json", String(repeating: "x", count: 96),
                   "~!#$%^&*()_+-=[]{}|;'\",.<>?`", "1764412345.M012345P4242Q1R9f3a0c1b.host"] {
            #expect(OperationID.isValid(id), "\(id)")
            #expect(OperationID.isValid(bytes: Array(id.utf8)), "\(id)")
        }
    }

    @Test func invalidIds() {
        for id in ["", ".", "..", ".a", ".why", "a.why", String(repeating: "x", count: 97), "a b", "a\tb", "a\n",
                   "a/b", "a:b", "a@b", "a\\b", "a\u{7F}", "é", "a\u{0}"] {
            #expect(!OperationID.isValid(id), "\(id.debugDescription)")
            #expect(!OperationID.isValid(bytes: Array(id.utf8)), "\(id.debugDescription)")
        }
        #expect(!OperationID.isValid(bytes: [0x61, 0xFF]))
        #expect(OperationID.maxLength == 96)
    }

    @Test func idBytesArePrintableASCIIExceptFour() {
        for byte in UInt8.min...UInt8.max {
            let expected = (0x21...0x7E).contains(byte) && !Self.forbidden.contains(byte)
            #expect(OperationID.isIDByte(byte) == expected, "byte \(byte)")
        }
    }

    @Test func whyInvalidNamesTheFirstProblem() {
        #expect(OperationID.whyInvalid(FileName(bytes: [0x61, 0xFF])) == "the file name is not valid UTF-8")
        #expect(OperationID.whyInvalid(FileName(String(repeating: "x", count: 97)))
            == "the file name is longer than 96 bytes")
        #expect(OperationID.whyInvalid(FileName(String(repeating: "é", count: 49)))
            == "the file name is longer than 96 bytes", "bytes, not characters")
        #expect(OperationID.whyInvalid(FileName("x.why"))
            == "the file name ends in .why, which is reserved for reasons")
        for name in ["a b", "a\nb", "a\u{7F}", "a\u{1}"] {
            #expect(OperationID.whyInvalid(FileName(name)) == "the file name contains spaces or control characters",
                    "\(name.debugDescription)")
        }
        #expect(OperationID.whyInvalid(FileName("café")) == "the file name contains non-ASCII characters")
        for name in ["a/b", "a:b", "a@b", "a\\b", "x:garbage"] {
            #expect(OperationID.whyInvalid(FileName(name)) == "the file name contains one of / : @ \\", "\(name)")
        }
    }

    @Test func sanitizedKeepsIdBytesAndReplacesTheRest() {
        #expect(OperationID.sanitized(FileName("ok-id")) == "ok-id")
        #expect(OperationID.sanitized(FileName("a b:c@d/e\\f")) == "a_b_c_d_e_f")
        #expect(OperationID.sanitized(FileName("é")) == "__", "one per byte")
        #expect(OperationID.sanitized(FileName("")) == "_")
        #expect(OperationID.sanitized(FileName(".")) == "_.")
        #expect(OperationID.sanitized(FileName(".hidden")) == "_.hidden")
        #expect(OperationID.sanitized(FileName("x.why")) == "x.why_")
        #expect(OperationID.sanitized(FileName(".why")) == "_.why_")
        #expect(OperationID.sanitized(FileName(String(repeating: "x", count: 200)))
            == String(repeating: "x", count: 84))
        #expect(OperationID.sanitized(FileName("." + String(repeating: "x", count: 200)))
            == "_." + String(repeating: "x", count: 83))
    }

    @Test func sanitizedIsAlwaysAValidId() {
        // A fixed pseudo-random sequence of names, weighted towards the bytes the rule cares about.
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return seed >> 33
        }
        let special: [UInt8] = Array("./:@\\ why".utf8) + [0, 0x0A, 0x7F, 0xFF]
        var invalid: [[UInt8]] = []
        for _ in 0..<5000 {
            let count = Int(next() % 120)
            let bytes = (0..<count).map { _ in
                next() % 3 == 0 ? special[Int(next() % UInt64(special.count))] : UInt8(truncatingIfNeeded: next())
            }
            let id = OperationID.sanitized(FileName(bytes: bytes))
            if !OperationID.isValid(id) || id.utf8.count > OperationID.maxLength - 10 { invalid.append(bytes) }
        }
        #expect(invalid.isEmpty, "\(invalid.prefix(3))")
    }
}
