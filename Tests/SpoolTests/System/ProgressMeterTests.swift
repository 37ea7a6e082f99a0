import Foundation
import Testing
@testable import SpoolSystem

/// curl's kind of progress meter: its line, and where it shows (a terminal, after half a second, not with
/// -s) as a person at a terminal and a script each meet it.
@Suite struct ProgressMeterTests {
    typealias Transfer = ProgressMeter.Transfer

    @Test func theLineSaysShareSizeSpeedAndTimeLeft() {
        let half = Transfer(done: 100 << 20, total: 200 << 20, started: 0)
        #expect(
            ProgressMeter.line(verb: "uploading", [half], now: 8)
                == "uploading   50%  100 MiB of 200 MiB  13 MiB/s  0:00:08 left")
        let piped = Transfer(done: 3 << 20, total: nil, started: 0)
        #expect(ProgressMeter.line(verb: "copying", [piped], now: 2) == "copying  3 MiB  1.5 MiB/s")
        let ended = Transfer(done: 200 << 20, total: 200 << 20, started: 0)
        #expect(ProgressMeter.line(verb: "copying", [ended], now: 3725, final: true)
            == "copying  100%  200 MiB of 200 MiB  55 KiB/s  in 1:02:05")
        let two = [
            Transfer(done: 1 << 20, total: 4 << 20, started: 0), Transfer(done: 1 << 20, total: 4 << 20, started: 1)
        ]
        #expect(
            ProgressMeter.line(verb: "uploading", two, now: 2).hasPrefix("uploading 2 payloads   25%  2 MiB of 8 MiB"))
    }

    static let script = FileManager.default.isExecutableFile(atPath: "/usr/bin/script")

    /// A payload trickling in from a pipe for over a second: on a terminal the copy shows its meter and ends
    /// with its total; piped, or with -s, nothing but the id. The line drawn after the pause shows the first
    /// MiB and whatever of the second the first read after it got (a write of head's: 1 MiB, or 1.1 and up).
    @Test(.enabled(if: script, "needs script(1) for a terminal"))
    func spoolEnqueueShowsItsCopyOnATerminalOnly() throws {
        let spool = TemporarySpool()
        let producer = "(head -c 1048576 /dev/zero; sleep 1; head -c 1048576 /dev/zero)"
        let enqueue = Command.path("spool-enqueue") + " --spool " + spool.path
        let url = "http://127.0.0.1:9/big"
        let terminal = try Command.run(
            "/usr/bin/script", ["-qec", "\(producer) | \(enqueue) --payload - PUT \(url)", "/dev/null"])
        let afterThePause = try Regex(#"\rcopying  1(\.[0-9])? MiB  "#)
        #expect(terminal.stdout.contains(afterThePause), "\(terminal.stdout.debugDescription)")
        #expect(terminal.stdout.contains(try Regex(#"\rcopying  2 MiB  [0-9.]+ [KM]iB/s  in 0:00:0[1-3]"#)),
                "\(terminal.stdout.debugDescription)")
        let silent = try Command.run(
            "/usr/bin/script", ["-qec", "\(producer) | \(enqueue) -sS --payload - PUT \(url)", "/dev/null"])
        #expect(!silent.stdout.contains("copying") && silent.stdout.count > 20, "\(silent.stdout.debugDescription)")
        let piped = try Command.run("/bin/sh", ["-c", "\(producer) | \(enqueue) --payload - PUT \(url)"])
        #expect(piped.status == 0 && piped.stderr.isEmpty, "\(piped.stderr)")
        #expect(spool.names("new").count == 3)
    }

    /// spool-send -v on a terminal shows an upload that lasts (2 MiB at 1 MiB/s) as curl's meter does, and
    /// the server gets the payload whole; not on a terminal, -v says only its lines.
    @Test(.enabled(if: script, "needs script(1) for a terminal"))
    func spoolSendVerboseShowsUploadsOnATerminalOnly() throws {
        let spool = TemporarySpool()
        let server = try UploadServer()
        let file = try PayloadTests.randomFile(spool.directory, "payload", count: 2 << 20)
        try spool.enqueue(["PUT", server.baseURL + "/shown", "--payload", file.path])
        let send = Command.path("spool-send") + " --spool " + spool.path + " --once -v --max-rate 1M"
        let terminal = try Command.run("/usr/bin/script", ["-qec", send, "/dev/null"])
        #expect(terminal.stdout.contains(try Regex(#"\ruploading +[0-9]+%  [0-9.]+ [KM]iB of 2 MiB"#)),
                "\(terminal.stdout.debugDescription)")
        #expect(terminal.stdout.contains(try Regex(#"uploading  100%  2 MiB of 2 MiB  .* in 0:00:0[2-4]"#)),
                "\(terminal.stdout.debugDescription)")
        #expect(server.wait { $0.filter { $0.event == "end" }.count == 1 } && server.ended.first?.sha256 == file.sha256)
        try spool.enqueue(["PUT", server.baseURL + "/quiet", "--payload", file.path])
        let piped = try spool.send(["-v", "--max-rate", "4M"])
        #expect(piped.stderr.contains("sending ") && !piped.stderr.contains("uploading"), "\(piped.stderr)")
    }
}
