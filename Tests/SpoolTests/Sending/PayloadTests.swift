import Foundation
import Glibc
import SpoolTestSupport
import Testing
@testable import SpoolDocument
@testable import SpoolNames
@testable import SpoolQueue
@testable import SpoolSystem

/// Payload-bearing operations: the document on the file's first line, the body every byte after it, copied in
/// by spool-enqueue or a shell, streamed by spool-send, checked by a server that hashes what it receives.
@Suite struct PayloadTests {
    /// A file of `count` random bytes (newlines and NULs among them), and its SHA-256.
    static func randomFile(_ directory: String, _ name: String, count: Int) throws -> (path: String, sha256: String) {
        let path = directory + "/" + name
        let made = try Command.run("/bin/sh", ["-c", "head -c \(count) /dev/urandom > \"$1\"", "sh", path])
        try #require(made.status == 0, "\(made.stderr)")
        return (path, try sha256(path))
    }

    /// `sha256sum` of a file, or of its bytes from `offset` on.
    static func sha256(_ path: String, from offset: Int64 = 0) throws -> String {
        let result = try Command.run("/bin/sh", ["-c", "tail -c +\(offset + 1) \"$1\" | sha256sum", "sh", path])
        return String(result.stdout.prefix(64))
    }

    @Test func aPayloadIsEverythingAfterTheDocumentsLine() throws {
        let document = #"{"method":"PUT","url":"http://h/a","payload":true}"#
        let bytes = Array((document + "\n{not json\n").utf8)
        let operation = try Spool.operation(bytes, truncated: false, fileSize: Int64(bytes.count), maxSize: 1 << 20,
                                            maxPayload: 1 << 30)
        #expect(operation.payload == PayloadSpan(offset: Int64(document.utf8.count) + 1, length: 10))
        // The document may be read whole while the payload is not: only its line counts against --max-size.
        let large = try Spool.operation(Array((document + "\nxyz").utf8), truncated: true, fileSize: 5_000_000_000,
                                        maxSize: 100, maxPayload: 8 << 30)
        #expect(large.payload?.length == 5_000_000_000 - Int64(document.utf8.count) - 1)
        func refusal(_ text: String, maxPayload: Int64 = 1 << 30) -> String {
            let bytes = Array(text.utf8)
            do {
                _ = try Spool.operation(bytes, truncated: false, fileSize: Int64(bytes.count), maxSize: 1 << 20,
                                        maxPayload: maxPayload)
                return "accepted"
            } catch {
                guard case let .rejected(rejection) = error else { return "\(error)" }
                return rejection.description
            }
        }
        #expect(refusal("{\n\"method\":\"PUT\",\"url\":\"http://h/a\",\"payload\":true}\n").contains("first line"))
        #expect(refusal(#"{"method":"PUT","url":"http://h/a","payload":true,"body":"x"}"# + "\n").contains("\"body\""))
        #expect(refusal(document + "\n12345", maxPayload: 4).contains("the payload is 5 bytes"))
        #expect(refusal(#"{"method":"PUT","url":"http://h/a","payload":"yes"}"#).contains("\"payload\" must be"))
        // Without "payload", a document followed by more is what it always was: not JSON.
        #expect(refusal(#"{"method":"PUT","url":"http://h/a"}"# + "\nmore").contains("not valid JSON"))
    }

    @Test func enqueuedPayloadsArriveByteForByte() throws {
        let spool = TemporarySpool()
        let server = try UploadServer()
        let file = try Self.randomFile(spool.directory, "archive.tar", count: 3 << 20)
        let put = try spool.enqueue(["PUT", server.baseURL + "/put", "--payload", file.path])
        let post = try Command.run(
            "spool-enqueue",
            ["--spool", spool.path, "POST", server.baseURL + "/post", "--header", "Content-Type: application/x-tar",
             "--payload", "-"], stdin: try Data(contentsOf: URL(fileURLWithPath: file.path)))
        #expect(post.status == 0, "\(post.stderr)")
        let show = try Command.run("spool-ctl", ["--spool", spool.path, "show", put])
        #expect(show.stdout.contains("payload:") && show.stdout.contains("3 MiB (\(3 << 20) bytes)"), "\(show.stdout)")
        #expect(!show.stdout.contains(#"payload":true}"#) || show.stdout.utf8.count < 4096, "no payload bytes shown")
        let list = try Command.run("spool-ctl", ["--spool", spool.path, "list"])
        #expect(list.stdout.contains("/put (payload 3 MiB)"), "\(list.stdout)")
        try spool.send()
        #expect(server.wait { $0.filter { $0.event == "end" }.count == 2 })
        // Two keys, two lanes: they arrive in either order.
        let ended = server.ended.sorted { $0.path > $1.path }
        #expect(ended.map(\.path) == ["/put", "/post"])
        #expect(ended.map(\.method) == ["PUT", "POST"])
        for event in ended {
            #expect(event.length == 3 << 20 && event.received == 3 << 20 && event.sha256 == file.sha256, "\(event)")
        }
        #expect(ended.first?.contentType == nil, "no Content-Type unless a header gives one")
        #expect(ended.last?.contentType == "application/x-tar")
        #expect(spool.names("new").isEmpty && spool.names("cur").isEmpty && spool.names("failed").isEmpty)
    }

    @Test func theShellDropOfSpool5DeliversThePayloadIntact() throws {
        let spool = TemporarySpool()
        let server = try UploadServer()
        let photo = try Self.randomFile(spool.directory, "photo.jpg", count: 700_000)
        let example = try #require(try ManPageExamples.blocks(in: "spool.5").first { $0.contains("cat photo.jpg") },
                                   "spool(5) shows the drop protocol with a payload")
        let script = example.replacingOccurrences(of: "http://127.0.0.1:8080", with: server.baseURL)
        let drop = try Command.run("/bin/sh", ["-c", "cd \"$1\" && \(script)", "sh", spool.directory])
        #expect(drop.status == 0, "\(drop.stderr)")
        try spool.send()
        #expect(server.wait { $0.contains { $0.event == "end" } })
        let ended = server.ended
        #expect(ended.count == 1 && ended.first?.sha256 == photo.sha256 && ended.first?.received == 700_000)
        #expect(ended.first?.contentType == "image/jpeg")
        #expect(spool.names("new").isEmpty && spool.names("failed").isEmpty)
    }

    @Test func limitsAreKeptOnBothSides() throws {
        let spool = TemporarySpool()
        let file = try Self.randomFile(spool.directory, "big", count: 3000)
        let refused = try Command.run(
            "spool-enqueue", ["--spool", spool.path, "PUT", "http://127.0.0.1:9/x", "--payload", file.path,
                              "--max-payload", "2k"])
        #expect(refused.status == 65 && refused.stderr.contains("over the limit of 2048 bytes"), "\(refused.stderr)")
        #expect(spool.names("new").isEmpty && spool.names("tmp").isEmpty, "nothing was enqueued, nothing left behind")
        let id = try spool.enqueue(["PUT", "http://127.0.0.1:9/x", "--payload", file.path])
        let sent = try Command.run("spool-send", ["--spool", spool.path, "--once", "--max-payload", "2k"])
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(spool.operations("failed") == [id])
        #expect(spool.read("failed", id + ".why").contains("error: too-large"), "\(spool.read("failed", id + ".why"))")
    }

    @Test func aFileThatShrinksUnderItsUploadIsFiledNeverSentShort() throws {
        let spool = TemporarySpool()
        let server = try UploadServer()
        let gate = spool.directory + "/gate"
        let file = try Self.randomFile(spool.directory, "payload", count: 64 << 20)
        let id = try spool.enqueue(["PUT", server.baseURL + "/slow?gate=" + gate, "--payload", file.path])
        let (sender, _, err) = try Command.start("spool-send", ["--spool", spool.path, "--once"])
        #expect(server.wait { $0.contains { $0.event == "start" } }, "the upload started")
        let claimed = try #require(spool.names("cur").first)
        #expect(truncate("\(spool.path)/cur/\(claimed)", 32 << 20) == 0)
        FileManager.default.createFile(atPath: gate, contents: nil)
        sender.waitUntilExit()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(server.wait { $0.contains { $0.event == "end" } })
        #expect(server.ended.allSatisfy { ($0.received ?? 0) < 64 << 20 }, "the server never got a whole body")
        #expect(spool.operations("failed") == [id], "\(stderr)")
        #expect(spool.read("failed", id + ".why").contains("payload-changed"), "\(spool.read("failed", id + ".why"))")
    }

    @Test func aKilledUploadIsSentAgainWholeWithTheSameKey() throws {
        let spool = TemporarySpool()
        let server = try UploadServer()
        let gate = spool.directory + "/gate"
        let file = try Self.randomFile(spool.directory, "payload", count: 48 << 20)
        try spool.enqueue(["PUT", server.baseURL + "/slow?gate=" + gate, "--payload", file.path])
        let (sender, _, _) = try Command.start("spool-send", ["--spool", spool.path, "--once"])
        #expect(server.wait { $0.contains { $0.event == "start" } }, "the upload started")
        kill(sender.processIdentifier, SIGKILL)
        sender.waitUntilExit()
        FileManager.default.createFile(atPath: gate, contents: nil)
        #expect(server.wait { $0.contains { $0.event == "end" } }, "the cut upload ended at the server")
        try spool.send()
        #expect(server.wait { $0.filter { $0.event == "end" }.count == 2 })
        let ended = server.ended
        #expect((ended.first?.received ?? 0) < 48 << 20, "the first upload was cut")
        #expect(ended.last?.received == 48 << 20 && ended.last?.sha256 == file.sha256, "sent again whole")
        #expect(ended.count == 2 && ended[0].key != nil && ended[0].key == ended[1].key, "with the same key")
        #expect(spool.names("new").isEmpty && spool.names("cur").isEmpty && spool.names("failed").isEmpty)
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/time"), "needs GNU time"),
          .enabled(if: Sanitizer.name == nil, Sanitizer.distorts), arguments: [false, true])
    func aGibibyteIsStreamedInLittleMemory(tls: Bool) throws {
        let spool = TemporarySpool()
        let server = try UploadServer(tls: tls)
        // A sparse gibibyte of zeros after the document: nothing to write, all to read and send.
        let document = #"{"method":"PUT","url":"\#(server.baseURL)/gib","payload":true}"# + "\n"
        let path = "\(spool.path)/new/gib"
        FileManager.default.createFile(atPath: path, contents: Data(document.utf8))
        #expect(truncate(path, off_t(document.utf8.count) + (1 << 30)) == 0)
        let expected = try Self.sha256(path, from: Int64(document.utf8.count))
        let trust = tls ? ["--cacert", try #require(TestCertificates.shared).caFile] : []
        let result = try Command.run(
            "/usr/bin/time", ["-f", "maxrss=%M", Command.path("spool-send"), "--spool", spool.path, "--once"] + trust,
            timeout: 300)
        #expect(result.status == 0, "\(result.stderr)")
        let kibibytes = result.stderr.split(separator: "\n").compactMap { line in
            line.hasPrefix("maxrss=") ? Int(line.dropFirst(7)) : nil
        }.last ?? .max
        print("1 GiB payload over \(tls ? "https" : "http"): spool-send's peak RSS \(kibibytes / 1024) MiB")
        #expect(kibibytes < 64 * 1024, "peak RSS \(kibibytes) KiB")
        #expect(server.wait(seconds: 60) { $0.contains { $0.event == "end" } })
        #expect(server.ended.first?.received == 1 << 30 && server.ended.first?.sha256 == expected)
        #expect(spool.names("new").isEmpty && spool.names("failed").isEmpty)
    }

    /// The same gibibyte over HTTP/2: Debian's nginx terminates TLS and HTTP/2 and streams the body, unbuffered,
    /// to the hashing server; its access log says which protocol the client spoke.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/time") && Nginx.binary != nil,
                   "needs GNU time and nginx"), .enabled(if: Sanitizer.name == nil, Sanitizer.distorts))
    func aGibibyteOverHTTP2StaysInLittleMemory() throws {
        let spool = TemporarySpool()
        let upstream = try UploadServer()
        let nginx = try Nginx(tls: true, http2: true, locations: """
            location / {
                proxy_pass \(upstream.baseURL);
                proxy_http_version 1.1;
                proxy_request_buffering off;
                client_max_body_size 2g;
            }
            """)
        let document = #"{"method":"PUT","url":"https://127.0.0.1:\#(nginx.port)/gib","payload":true}"# + "\n"
        let path = "\(spool.path)/new/gib"
        FileManager.default.createFile(atPath: path, contents: Data(document.utf8))
        #expect(truncate(path, off_t(document.utf8.count) + (1 << 30)) == 0)
        let expected = try Self.sha256(path, from: Int64(document.utf8.count))
        let result = try Command.run(
            "/usr/bin/time", ["-f", "maxrss=%M", Command.path("spool-send"), "--spool", spool.path, "--once",
                              "--cacert", try #require(TestCertificates.shared).caFile], timeout: 300)
        #expect(result.status == 0, "\(result.stderr)")
        let kibibytes = result.stderr.split(separator: "\n").compactMap { line in
            line.hasPrefix("maxrss=") ? Int(line.dropFirst(7)) : nil
        }.last ?? .max
        print("1 GiB payload over HTTP/2 (nginx): spool-send's peak RSS \(kibibytes / 1024) MiB")
        #expect(kibibytes < 64 * 1024, "peak RSS \(kibibytes) KiB")
        #expect(upstream.wait(seconds: 60) { $0.contains { $0.event == "end" } })
        #expect(upstream.ended.first?.received == 1 << 30 && upstream.ended.first?.sha256 == expected)
        #expect(nginx.accessLog.map(\.httpProtocol) == ["HTTP/2.0"], "\(nginx.accessLog.map(\.fields))")
        #expect(spool.names("new").isEmpty && spool.names("failed").isEmpty)
    }

    /// `spool-ctl retry --if-match` rewrites a filed operation's document: its payload comes along whole.
    @Test func aConflictRetriedWithIfMatchKeepsItsPayload() throws {
        let spool = TemporarySpool()
        let server = try UploadServer()
        let file = try Self.randomFile(spool.directory, "payload", count: 1 << 20)
        let id = try spool.enqueue(["PUT", server.baseURL + "/doc?ifmatch=v2", "--payload", file.path])
        try spool.send()
        #expect(spool.operations("conflict") == [id])
        let retried = try Command.run("spool-ctl", ["--spool", spool.path, "retry", id, "--if-match", "v2"])
        #expect(retried.status == 0, "\(retried.stderr)")
        try spool.send()
        #expect(server.wait { $0.filter { $0.event == "end" }.count == 2 })
        let ended = server.ended
        #expect(ended.map(\.sha256) == [file.sha256, file.sha256] && ended.map(\.received) == [1 << 20, 1 << 20])
        #expect(spool.names("new").isEmpty && spool.names("conflict").isEmpty)
    }

    /// `--max-rate` caps how fast a body is sent, as curl's `--limit-rate` does.
    @Test func maxRateCapsTheUpload() throws {
        let spool = TemporarySpool()
        let server = try UploadServer()
        let file = try Self.randomFile(spool.directory, "payload", count: 3 << 20)
        try spool.enqueue(["PUT", server.baseURL + "/capped", "--payload", file.path])
        let started = Date()
        try spool.send(["--max-rate", "1M"])
        let seconds = Date().timeIntervalSince(started)
        #expect(server.wait { $0.contains { $0.event == "end" } })
        #expect(server.ended.first?.sha256 == file.sha256)
        // 3 MiB at 1 MiB/s: about three seconds, certainly not the fraction of one that loopback takes.
        #expect(seconds > 2, "took \(seconds) s")
    }

    static let secondHost: String? = {
        guard geteuid() == 0 else { return "not root, so cannot give a worker another host name" }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else { return "unshare is missing" }
        return nil
    }()

    /// An upload that takes longer than `--lease` keeps its claim from another host's recovery: its worker
    /// touches the file while it sends, and the lease counts from the last touch.
    @Test(.enabled(if: PayloadTests.secondHost == nil, "needs root and unshare for a second host name"))
    func anUploadLongerThanTheLeaseKeepsItsClaim() throws {
        let spool = TemporarySpool()
        let server = try UploadServer()
        let file = try Self.randomFile(spool.directory, "payload", count: 64 << 20)
        // 8 MiB/s: eight seconds for what --lease 3 would call dead after three. Fast enough that what the
        // kernel's socket buffers hold at the end drains well within --timeout, which bounds a stall.
        try spool.enqueue(["PUT", server.baseURL + "/paced?rate=8388608", "--payload", file.path])
        func onHost(_ host: String) throws -> (Process, Pipe, Pipe) {
            try Command.start("/usr/bin/unshare", [
                "-u", "/bin/sh", "-c", "hostname \(host) && exec \"$0\" \"$@\"", Command.path("spool-send"),
                "--spool", spool.path, "--once", "--timeout", "2", "--lease", "3",
            ])
        }
        let (uploader, _, uploaderErrors) = try onHost("host-a")
        #expect(server.wait { $0.contains { $0.event == "start" } }, "the upload started")
        let claimed = try #require(spool.names("cur").first)
        let since = try #require(QueueName(FileName(claimed))?.claim?.since)
        // Wait until the claim is older than the lease and its file was touched since it was made.
        let deadline = Date().addingTimeInterval(10)
        func touched() -> Bool {
            let modified = (try? FileManager.default.attributesOfItem(atPath: "\(spool.path)/cur/\(claimed)"))?[
                .modificationDate] as? Date
            return (modified?.timeIntervalSince1970 ?? 0) > Double(since) + 1
        }
        while Date() < deadline, Int64(Date().timeIntervalSince1970) - since <= 4 || !touched() { usleep(50_000) }
        #expect(touched(), "the uploading worker touched its claim")
        let (other, _, otherErrors) = try onHost("host-b")
        other.waitUntilExit()
        let otherText = String(decoding: otherErrors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(other.terminationStatus == 0, "\(otherText)")
        #expect(spool.names("cur") == [claimed], "host-b left host-a's live claim alone: \(otherText)")
        uploader.waitUntilExit()
        let uploaderText = String(decoding: uploaderErrors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(uploader.terminationStatus == 0, "\(uploaderText)")
        #expect(server.wait { $0.contains { $0.event == "end" } })
        #expect(server.events.filter { $0.event == "start" }.count == 1, "sent once")
        #expect(server.ended.first?.sha256 == file.sha256)
        #expect(
            spool.names("new").isEmpty && spool.names("cur").isEmpty && spool.names("failed").isEmpty,
            "\(spool.names("new")) \(spool.names("cur")) \(spool.names("failed")): \(uploaderText)")
    }
}
