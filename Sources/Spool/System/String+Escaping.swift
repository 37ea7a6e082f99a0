/// The one rule for text that a producer or a server wrote and spool shows to a person: in a reason file, a
/// log line, a listing, `show`, a diff, the page's log. Only the escapes below change anything, so that
/// what a person reads is what was written, but no byte of it can move their cursor, start a line of its
/// own, set a terminal's title or colours, or reorder what is shown.
extension String {
    /// The string with control characters shown as escapes: `\n`, `\r`, `\t`, `\xHH` for the other C0
    /// controls and DEL, `\uHHHH` for the C1 controls (U+0080 to U+009F: an 8-bit terminal reads U+009B as
    /// CSI) and the bidirectional formatting characters (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066
    /// to U+2069), which reorder text on screen and can hide part of a line. `keepingLines`: newlines and
    /// tabs stay, for a block of several lines (a body, a diff) whose lines a person reads as text.
    package func replacingControlCharacters(keepingLines: Bool = false) -> String {
        guard unicodeScalars.contains(where: String.isEscaped) else { return self }
        var out = ""
        for scalar in unicodeScalars {
            switch scalar {
            case "\n" where keepingLines, "\t" where keepingLines: out.unicodeScalars.append(scalar)
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                out += "\\x" + String(scalar.value, radix: 16).leftPadded(to: 2)
            case _ where String.isEscaped(scalar):
                out += "\\u" + String(scalar.value, radix: 16).leftPadded(to: 4)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// Whether `replacingControlCharacters` writes `scalar` as an escape (newlines and tabs included).
    static func isEscaped(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}
