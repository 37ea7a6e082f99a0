/// Character classes from RFC 9110, and the ASCII case folding its case-insensitive parts (schemes, hosts,
/// field names) need: done on bytes, since these are ASCII by the time they are compared.
package enum HTTPSyntax {
    /// Whether `c` is an ASCII letter or digit (`ALPHA / DIGIT`).
    package static func isAlphanumeric(_ c: UInt8) -> Bool {
        (0x30...0x39).contains(c) || (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c)
    }

    /// `tchar`: the characters of a method or header-name token.
    package static func isTokenCharacter(_ c: UInt8) -> Bool {
        isAlphanumeric(c) || "!#$%&'*+-.^_`|~".utf8.contains(c)
    }

    /// `c` with an ASCII capital letter made small; every other byte as it is.
    @inlinable package static func lowercased(_ c: UInt8) -> UInt8 { (0x41...0x5A).contains(c) ? c | 0x20 : c }

    // Concrete types, not generic ones: these run per request and per header line, across modules, where an
    // unspecialized generic looked up type metadata at run time on every call.

    /// `bytes` as text with ASCII capitals made small, written straight into the string (no array between).
    package static func lowercasedText(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> String {
        String(unsafeUninitializedCapacity: bytes.count) { text in
            text.initialize(from: bytes.lazy.map(lowercased)).1
        }
    }

    /// Whether `bytes` spell `lowercase` (small ASCII letters) in any case.
    package static func equalsIgnoringCase(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, _ lowercase: StaticString)
        -> Bool
    {
        spells(bytes, lowercase)
    }

    /// Whether `text` spells `lowercase` (small ASCII letters) in any case.
    package static func equalsIgnoringCase(_ text: String, _ lowercase: StaticString) -> Bool {
        spells(text.utf8, lowercase)
    }

    /// The one comparison behind both: generic, but called only from this file, where it is specialized.
    private static func spells<Bytes: Collection<UInt8>>(_ bytes: Bytes, _ lowercase: StaticString) -> Bool {
        let expected = UnsafeBufferPointer(start: lowercase.utf8Start, count: lowercase.utf8CodeUnitCount)
        return bytes.count == expected.count && zip(bytes, expected).allSatisfy { lowercased($0) == $1 }
    }
}
