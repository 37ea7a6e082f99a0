/// Sizes and rates as curl writes them (`--limit-rate 500k`, `--max-filesize 1G`): a number of bytes, or one
/// with `k`, `M` or `G` for 1024, 1024² or 1024³ of them, either case.
package enum ByteCount {
    /// The bytes `text` says, or nil when it is not such a number.
    package static func parse(_ text: String) -> Int64? {
        let units: [Character: Int64] = [
            "k": 1 << 10, "K": 1 << 10, "m": 1 << 20, "M": 1 << 20, "g": 1 << 30, "G": 1 << 30
        ]
        let unit = text.last.flatMap { units[$0] }
        let digits = unit == nil ? Substring(text) : text.dropLast()
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let n = Int64(digits), n >= 0,
              n <= Int64.max / (unit ?? 1) else { return nil }
        return n * (unit ?? 1)
    }
}
