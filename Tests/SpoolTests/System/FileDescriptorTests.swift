import Foundation
import Glibc
import Testing
@testable import SpoolSystem

/// Reading a file's first bytes: whole, cut at the limit, and a file whose size changed since it was looked at.
@Suite struct FileDescriptorTests {
    @Test func readPrefixWithAndWithoutTheExpectedSize() throws {
        let directory = makeTemporaryDirectory("spool-fd")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let folder = try FileDescriptor.currentDirectory.openDirectory(FileName(directory))
        defer { folder.close() }
        let text = Array((0..<1000).map { UInt8(truncatingIfNeeded: $0 % 251) })
        FileManager.default.createFile(atPath: directory + "/f", contents: Data(text))
        let fd = try folder.open(FileName("f"), O_RDONLY)
        defer { fd.close() }
        for expected in [nil, 1000, 10, 0, 5000] as [Int?] {
            let whole = try fd.readPrefix(limit: 4096, expectedSize: expected)
            #expect(whole.bytes == text && !whole.truncated, "expected size \(String(describing: expected))")
            let cut = try fd.readPrefix(limit: 999, expectedSize: expected)
            #expect(cut.bytes == Array(text.prefix(999)) && cut.truncated, "expected size \(String(describing: expected))")
            let exact = try fd.readPrefix(limit: 1000, expectedSize: expected)
            #expect(exact.bytes == text && !exact.truncated, "expected size \(String(describing: expected))")
        }
    }
}
