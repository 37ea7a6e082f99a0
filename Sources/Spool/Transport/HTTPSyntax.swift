/// Character classes from RFC 9110.
package enum HTTPSyntax {
    package static func isAlphanumeric(_ c: UInt8) -> Bool {
        (0x30...0x39).contains(c) || (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c)
    }

    /// `tchar`: the characters of a method or header-name token.
    package static func isTokenCharacter(_ c: UInt8) -> Bool {
        isAlphanumeric(c) || "!#$%&'*+-.^_`|~".utf8.contains(c)
    }
}
