import Foundation
import Testing
@testable import SpoolDocument
@testable import SpoolQueue
@testable import SpoolSystem

/// `Spool.readOperation` reads a first piece of a file, and more only when that piece is not all of it and
/// holds no payload document: large documents still read whole, payloads never.
@Suite struct OperationReadTests {
    @Test func documentsLargerThanTheFirstPieceReadWhole() throws {
        let temporary = TemporarySpool()
        let body = String(repeating: "x", count: 200_000)
        temporary.drop("new", "line", #"{"method":"PUT","url":"http://h/a","body":"\#(body)"}"# + "\n")
        temporary.drop("new", "pretty", "{\n  \"method\": \"PUT\",\n  \"url\": \"http://h/b\",\n  \"body\": \"\(body)\"\n}\n")
        let spool = try temporary.open()
        for name in ["line", "pretty"] {
            let read = try spool.readOperation(.new, FileName(name), maxSize: 1 << 20)
            #expect(read?.operation.body?.count == 200_000 && read?.operation.payload == nil, "\(name)")
        }
        #expect(throws: ReadError.self) { try spool.readOperation(.new, FileName("line"), maxSize: 100_000) }
    }

    @Test func aPayloadsDocumentIsItsFirstLineWhateverFollows() throws {
        let temporary = TemporarySpool()
        let document = #"{"method":"PUT","url":"http://h/a","payload":true}"#
        // Bytes that are no JSON at all, far beyond the first piece.
        temporary.drop("new", "p", document + "\n" + String(repeating: "\u{1}", count: 3_000_000))
        let read = try temporary.open().readOperation(.new, FileName("p"), maxSize: 1 << 20)
        #expect(read?.operation.payload == PayloadSpan(offset: Int64(document.utf8.count) + 1, length: 3_000_000))
    }
}
