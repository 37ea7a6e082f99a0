import Glibc
import Testing
@testable import SpoolSystem

/// Raw directory-entry names: bytes and strings, plainness, escaping for messages, order, C strings and paths.
@Suite struct FileNameTests {
    @Test func bytesAndStringsRoundTrip() {
        #expect(FileName("abc").bytes == [0x61, 0x62, 0x63])
        #expect(FileName("é").bytes == [0xC3, 0xA9])
        #expect(FileName(bytes: [0xC3, 0xA9]).string == "é")
        for text in ["x", "a b", "1764412345.M012345P4242Q1R9f3a0c1b.host:o=1,k=0000000000000001", "日本語", ""] {
            #expect(FileName(text).string == text)
            #expect(FileName(bytes: FileName(text).bytes) == FileName(text))
        }
        #expect(FileName(bytes: [0x61, 0xFF]).string == nil, "not UTF-8")
        #expect(FileName(bytes: [0xC0, 0xAF]).string == nil, "an overlong slash")
        #expect(FileName(bytes: [0xED, 0xA0, 0x80]).string == nil, "a UTF-16 surrogate")
        #expect(Set([FileName("x"), FileName(bytes: [0x78])]).count == 1)
    }

    @Test func plainNames() {
        for plain in ["job.json", "a b", "é", "a\\b", "...", ".hidden", "x:o=1@h,1,2,3"] {
            #expect(FileName(plain).isPlain, "\(plain)")
        }
        #expect(!FileName("").isPlain)
        #expect(!FileName(".").isPlain)
        #expect(!FileName("..").isPlain)
        #expect(!FileName("a/b").isPlain)
        #expect(!FileName("a\nb").isPlain)
        #expect(!FileName("a\tb").isPlain)
        #expect(!FileName(bytes: [0x61, 0x7F]).isPlain, "DEL")
        #expect(!FileName(bytes: [0x61, 0x00]).isPlain, "NUL")
        #expect(!FileName(bytes: [0x61, 0xFF]).isPlain, "not UTF-8")
    }

    @Test func hiddenNamesStartWithADot() {
        #expect(FileName(".").isHidden)
        #expect(FileName("..").isHidden)
        #expect(FileName(".origins").isHidden)
        #expect(FileName(bytes: [0x2E, 0xFF]).isHidden)
        #expect(!FileName("a.b").isHidden)
        #expect(!FileName("x.").isHidden)
        #expect(!FileName("").isHidden)
    }

    @Test func plainNamesAreShownAsTheyAre() {
        #expect(FileName("job.json").escaped == "job.json")
        #expect(FileName("a b").escaped == "a b")
        #expect(FileName("é").escaped == "é")
        #expect(FileName("job.json").description == "job.json")
    }

    @Test func otherNamesEscapeEveryByteThatIsNotPrintableASCII() {
        #expect(FileName(bytes: [0x61, 0x0A, 0x62]).escaped == #"a\x0ab"#)
        #expect(FileName(bytes: [0x61, 0x0D, 0x0A]).escaped == #"a\x0d\x0a"#)
        #expect(FileName(bytes: [0x61, 0xFF]).escaped == #"a\xff"#)
        #expect(FileName(bytes: [0x61, 0x7F]).escaped == #"a\x7f"#)
        #expect(FileName(bytes: [0x00]).escaped == #"\x00"#)
        #expect(FileName(bytes: [0xC3, 0xA9, 0x0A]).escaped == #"\xc3\xa9\x0a"#,
                "UTF-8 too, once the name is not plain")
        #expect(FileName(bytes: [0x5C, 0x0A]).escaped == #"\x5c\x0a"#, "a backslash is escaped so that \\x reads back")
        #expect(FileName("a/b").escaped == "a/b", "a slash is printable")
        #expect(FileName(".").escaped == ".")
        #expect(FileName(bytes: [0x61, 0x09]).description == #"a\x09"#)
        // Every escaped form is printable ASCII, whatever the bytes.
        let every = FileName(bytes: Array(0...255)).escaped
        #expect(every.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F })
        #expect(every.utf8.count == 94 + 162 * 4, "94 printable bytes as they are, 162 others as \\xNN")
    }

    @Test func escapedFormsOfDifferentNamesDiffer() {
        // A plain name holding a literal `\x0a` should not read the same as a name holding a line feed.
        #expect(FileName(#"a\x0a"#).escaped != FileName(bytes: [0x61, 0x0A]).escaped)
    }

    @Test func c1ControlCharactersAreNotPlain() {
        // U+009B is CSI, a terminal control character: `isPlain` promises "no control characters".
        #expect(!FileName("a\u{9B}2Jb").isPlain)
        #expect(FileName("a\u{85}b").escaped != "a\u{85}b")
    }

    @Test func namesSortByteWiseAsLsInTheCLocale() {
        let names = [FileName("b"), FileName("B"), FileName(bytes: [0xFF]), FileName("a"), FileName(""),
                     FileName("ab"), FileName("é"), FileName("A")]
        let sorted = names.sorted().map(\.bytes)
        #expect(sorted == [[], [0x41], [0x42], [0x61], [0x61, 0x62], [0x62], [0xC3, 0xA9], [0xFF]])
        #expect(!(FileName("a") < FileName("a")))
    }

    @Test func cStringsAreTheBytesWithATerminatingNul() {
        #expect(FileName("abc").withCString { strlen($0) } == 3)
        #expect(FileName("abc").withCString { String(cString: $0) } == "abc")
        let raw: [UInt8] = [0xFF, 0x41, 0x0A]
        let read = FileName(bytes: raw).withCString { pointer in
            (0..<4).map { UInt8(bitPattern: pointer[$0]) }
        }
        #expect(read == raw + [0])
        #expect(FileName("").withCString { strlen($0) } == 0)
    }

    @Test func absolutePathsAreLeftAloneAndRelativeOnesJoinTheWorkingDirectory() throws {
        #expect(FileName.absolutePath("/etc/spool") == "/etc/spool")
        #expect(FileName.absolutePath("/") == "/")
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX))
        try #require(getcwd(&buffer, buffer.count) != nil)
        let cwd = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let base = cwd == "/" ? "" : cwd
        #expect(FileName.absolutePath("spool") == base + "/spool")
        #expect(FileName.absolutePath("./spool") == base + "/spool")
        #expect(FileName.absolutePath("a/b") == base + "/a/b")
        #expect(FileName.absolutePath("../x") == base + "/../x")
    }

    @Test func leftPadding() {
        #expect("7".leftPadded(to: 3) == "007")
        #expect("42".leftPadded(to: 2) == "42")
        #expect("1234".leftPadded(to: 2) == "1234")
        #expect("".leftPadded(to: 2) == "00")
        #expect("x".leftPadded(to: 4, with: " ") == "   x")
    }

    @Test func trimmingSpacesAndTabsOnly() {
        #expect(" \ta b\t ".trimmingWhitespace() == "a b")
        #expect("   ".trimmingWhitespace() == "")
        #expect("".trimmingWhitespace() == "")
        #expect("x".trimmingWhitespace() == "x")
        #expect("\n x \r".trimmingWhitespace() == "\n x \r", "line ends are not HTTP whitespace")
        #expect(" é ".trimmingWhitespace() == "é")
        #expect("  a  b  "[...].trimmingWhitespace() == "a  b")
    }
}
