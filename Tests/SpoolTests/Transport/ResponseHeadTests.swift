import SpoolTransport
import Testing

/// The engine's reader of a server's head, line by line as libcurl hands the lines on.
@Suite struct ResponseHeadTests {
    /// The head after reading `lines`, each given its CRLF.
    func read(_ lines: [String], limit: Int = 4096) -> ResponseHead {
        var head = ResponseHead(limit: limit)
        for line in lines {
            let bytes = Array((line + "\r\n").utf8)
            guard bytes.withUnsafeBufferPointer({ head.take($0) }) else { break }
        }
        return head
    }

    @Test func theFinalHeadAfterInterimOnesIsKept() {
        let head = read(["HTTP/1.1 100 Continue", "X-Interim: 1", "", "HTTP/1.1 412 Precondition Failed",
                         "ETag: \"v7\"", "Set-Cookie: a=1", "set-cookie: b=2", "", "Trailer-Field: t"])
        #expect(head.status == 412)
        #expect(head.isComplete && head.isHTTP1)
        #expect(head.fields == ["etag": "\"v7\"", "set-cookie": "a=1, b=2"])
    }

    /// What the fuzzer found (Tests/Corpus/fuzz/head/empty-repeated-field): an empty line of a repeated field
    /// was joined as an empty list element, leaving `0, ` with its blank at the end.
    @Test func emptyRepeatedFieldsAddNoEmptyElement() {
        let head = read(["HTTP/1.1 429 Too Many Requests", "X-A: 0", "X-A:", "X-A: 1", "X-B:", "X-B: 2", "X-C:"])
        #expect(head.fields == ["x-a": "0, 1", "x-b": "2", "x-c": ""])
        let folded = read(["HTTP/1.1 200 OK", "X-A: x", "X-A:", " w", "X-B: y", " z"])
        #expect(folded.fields == ["x-a": "x, w", "x-b": "y z"])
    }

    @Test func aStatusIsThreeDigitsOrNothing() {
        // As leniently as libcurl, whose reading decides how the transfer goes on.
        for line in ["HTTP/2 204 ", "HTTP/1.1 204", "HTTP/1.1  204 OK", "HTTP/1.1 204\tNo Content", "HTTP/1.0\t204"] {
            #expect(read([line]).status == 204, "\(line)")
        }
        for line in ["HTTP/1.1 2000 OK", "HTTP/1.1 +200 OK", "HTTP/1.1 -20 OK", "HTTP/1.1 099 X", "HTTP/1.1 20x OK",
                     "HTTP/1.1", "HTTP/1.1 "] {
            #expect(read([line]).status == 0, "\(line)")
        }
    }

    @Test func fieldValuesCannotCarryLineBreaksOrNul() {
        var head = ResponseHead(limit: 4096)
        for line in ["HTTP/1.1 409 Conflict\r\n", "ETag: \"a\rb\"\r\n", "X-Nul: a\u{0}b\u{0}\r\n", "Location:  \t/x \t\r\n"] {
            _ = Array(line.utf8).withUnsafeBufferPointer { head.take($0) }
        }
        #expect(head.fields == ["etag": "\"a b\"", "x-nul": "a b", "location": "/x"])
    }

    @Test func foldedLinesJoinAndBadNamesAreDropped() {
        let head = read(["HTTP/1.1 503 Service Unavailable", "X-Folded: a", "  b", "\tc", "ETag : W/\"x\"",
                         "Bad Name: y", ": empty", "no colon", " orphan continuation", ""])
        #expect(head.fields == ["x-folded": "a b c", "etag": "W/\"x\""])
    }

    @Test func aHeadOverItsLimitIsTooLarge() {
        let head = read(["HTTP/1.1 200 OK", String(repeating: "x", count: 60) + ": y"], limit: 64)
        #expect(head.isTooLarge)
        var again = head
        again.reset()
        #expect(!again.isTooLarge && again.status == 0 && again.fields.isEmpty && again.limit == 64)
    }
}
