
/// The last bytes a handler wrote to one stream, and how many it wrote in all: bounded whatever it prints.
package struct OutputTail: Sendable, Equatable {
    /// Bytes kept: the end of the stream.
    package static let limit = 64 * 1024

    /// The last `limit` bytes or fewer.
    package private(set) var bytes: [UInt8] = []
    /// Every byte written, kept or not.
    package private(set) var total = 0

    /// An empty stream.
    package init() {}

    /// Adds what was read, dropping the oldest bytes past the limit.
    package mutating func append(_ chunk: ArraySlice<UInt8>) {
        total += chunk.count
        bytes.append(contentsOf: chunk)
        // Trimmed in steps, so that a chatty handler costs a copy per 64 KiB, not per read.
        if bytes.count > 2 * OutputTail.limit { bytes.removeFirst(bytes.count - OutputTail.limit) }
    }

    /// The last `lines` lines, at most `maxBytes` bytes, as text: what a reason file shows.
    package func lastLines(_ lines: Int, maxBytes: Int = 1024) -> String {
        var end = bytes.endIndex
        while end > bytes.startIndex, bytes[end - 1] == 0x0A { end -= 1 }
        var start = end, seen = 0
        while start > bytes.startIndex, end - start < maxBytes {
            if bytes[start - 1] == 0x0A {
                seen += 1
                if seen == lines { break }
            }
            start -= 1
        }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }
}
