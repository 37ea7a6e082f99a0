
/// Standard base64 (RFC 4648, with padding) for `body_base64`.
package enum Base64 {
    /// The 64 digits in order of their value, as ASCII bytes (RFC 4648, table 1).
    package static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Decodes standard base64; whitespace is not allowed. Returns nil when the text is not base64.
    package static func decode(_ text: String) -> [UInt8]? {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (i, c) in alphabet.enumerated() { table[Int(c)] = UInt8(i) }
        let input = Array(text.utf8)
        guard input.count % 4 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(input.count / 4 * 3)
        var i = 0
        while i < input.count {
            let isLast = i + 4 == input.count
            var quad = [UInt8](repeating: 0, count: 4)
            var padding = 0
            for j in 0..<4 {
                let c = input[i + j]
                if c == UInt8(ascii: "="), isLast, j >= 2 {
                    padding += 1
                    continue
                }
                guard padding == 0, table[Int(c)] != 0xFF else { return nil }
                quad[j] = table[Int(c)]
            }
            out.append(quad[0] << 2 | quad[1] >> 4)
            if padding < 2 { out.append(quad[1] << 4 | quad[2] >> 2) }
            if padding < 1 { out.append(quad[2] << 6 | quad[3]) }
            i += 4
        }
        return out
    }

    /// Encodes bytes as standard base64 with padding.
    package static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i < bytes.count {
            let b0 = bytes[i], b1 = i + 1 < bytes.count ? bytes[i + 1] : 0, b2 = i + 2 < bytes.count ? bytes[i + 2] : 0
            out.append(alphabet[Int(b0 >> 2)])
            out.append(alphabet[Int((b0 & 0x3) << 4 | b1 >> 4)])
            out.append(i + 1 < bytes.count ? alphabet[Int((b1 & 0xF) << 2 | b2 >> 6)] : UInt8(ascii: "="))
            out.append(i + 2 < bytes.count ? alphabet[Int(b2 & 0x3F)] : UInt8(ascii: "="))
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }
}
