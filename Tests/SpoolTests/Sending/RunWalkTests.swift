import Foundation
import SpoolTestSupport
import Testing

/// The way of one `spool-send --once` that delivers one write, as strace sees it: which of the spool's
/// folders each half opens. What the light front did (housekeeping, the TLS checks) is not done again by the
/// sender it execs, so a cron run's cost is the work, not the same checks twice.
@Suite struct RunWalkTests {
    /// Each half's opens of the spool's folders (`tmp`, `new`, `cur`, `failed`, `conflict`) and listings
    /// of them, in order.
    struct Walk {
        var front: [String] = [], sender: [String] = []
        var frontListings: [String] = [], senderListings: [String] = []
        var total: Int { front.count + sender.count }
    }

    /// Reads strace's `-f -y -e trace=openat,getdents64,execve` output: the sender's half starts at its
    /// execve; a listing ends with a `getdents64` that returns 0.
    static func walk(_ trace: String) -> Walk {
        var walk = Walk()
        var senderStarted = false
        let opened = try! Regex(#"openat\([0-9]+<[^>]*>, "(tmp|new|cur|failed|conflict)", [^)]*O_DIRECTORY"#)
        let listed = try! Regex(#"getdents64\([0-9]+<[^>]*/(tmp|new|cur|failed|conflict)>, .*= 0$"#)
        for line in trace.split(separator: "\n") {
            if line.contains("execve(") && line.contains("spool-send-http") && line.hasSuffix("= 0") {
                senderStarted = true
            }
            if let match = line.firstMatch(of: opened), let name = match.output[1].substring {
                if senderStarted { walk.sender.append(String(name)) } else { walk.front.append(String(name)) }
            }
            if let match = line.firstMatch(of: listed), let name = match.output[1].substring {
                if senderStarted {
                    walk.senderListings.append(String(name))
                } else {
                    walk.frontListings.append(String(name))
                }
            }
        }
        return walk
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/strace"), "needs strace; .ci/run installs it"))
    func oneWriteOpensTheFoldersFewTimesAndTheSenderDoesNotHousekeepAgain() throws {
        let spool = TemporarySpool()
        let server = try TestServer { _ in .respond(204, [:], "") }
        defer { server.stop() }
        try spool.enqueue(["PUT", server.baseURL + "/item", "--body", "1"])
        let trace = spool.directory + "/trace"
        let traced = try Command.run(
            "/usr/bin/strace",
            ["-f", "-qq", "-y", "-e", "trace=openat,getdents64,execve", "-o", trace, Command.path("spool-send"), "--spool", spool.path,
             "--once"], environment: Sanitizer.withoutLeakCheck)
        #expect(traced.status == 0 && server.requests.count == 1, "\(traced.stderr)")
        #expect(spool.names("new").isEmpty && spool.names("cur").isEmpty)
        let walk = Self.walk(try String(contentsOfFile: trace, encoding: .utf8))
        #expect(!walk.front.isEmpty && !walk.sender.isEmpty, "both halves ran: \(walk)")
        // Housekeeping (filings cut short, dead claims, old files in tmp/) ran once, in the front.
        #expect(walk.frontListings.contains("tmp"), "\(walk)")
        for folder in ["failed", "conflict", "tmp"] {
            #expect(!walk.senderListings.contains(folder), "the sender listed \(folder)/ again: \(walk)")
        }
        for folder in ["failed", "conflict"] {
            #expect(!(walk.front + walk.sender).contains(folder), "a delivery never opens \(folder)/: \(walk)")
        }
        // The front plans from the names its housekeeping's listing of cur/ found, and looks at the folders'
        // times without opening them (IdleHint); the sender opens new/ and cur/ for its moves.
        #expect(walk.frontListings.filter { $0 == "cur" }.count == 1, "the front lists cur/ once: \(walk)")
        #expect(walk.total <= 10, "folder opens: front \(walk.front), sender \(walk.sender)")
    }
}
