import Foundation
import Glibc
import Testing
@testable import Spool
@testable import SpoolSystem
@testable import SpoolTransport
@testable import SpoolNames
@testable import SpoolDocument
@testable import SpoolConfiguration
@testable import SpoolQueue
@testable import SpoolHandlers
@testable import SpoolSending
@testable import SpoolReporting
@testable import SpoolControl

/// The handlers shipped in `examples/handlers/`, run by spool-send as an admin would install them, with
/// their fixed paths pointed at the test's own folders.
@Suite struct ExampleHandlerTests {
    /// Installs example `name` into the fixture's handler directory, with `replacements` applied.
    func install(_ name: String, into fixture: HandlerFixture, _ replacements: [(String, String)]) throws {
        var text = try String(contentsOfFile: "\(Repository.root)/examples/handlers/\(name)", encoding: .utf8)
        for (old, new) in replacements {
            #expect(text.contains(old), "\(name) no longer holds \(old)")
            text = text.replacingOccurrences(of: old, with: new)
        }
        fixture.script(name, String(text.drop { $0 != "\n" }.dropFirst()))
    }

    /// Whether rsync is there for the handler to run.
    static let hasRsync = ["/usr/bin/rsync", "/bin/rsync"].contains { FileManager.default.isExecutableFile(atPath: $0) }

    @Test(.enabled(if: hasRsync, "rsync is not installed (.ci/run installs it)"))
    func rsyncCopiesOnePathAndRefusesOthers() throws {
        let spool = TemporarySpool(), fixture = HandlerFixture()
        let source = fixture.work + "/source", destination = fixture.work + "/backup"
        try FileManager.default.createDirectory(
            atPath: source + "/photos/2026-12-01", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: destination, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: source + "/photos/2026-12-01/a.jpg", contents: Data("jpeg".utf8))
        try install(
            "rsync", into: fixture,
            [("SOURCE=/srv/data", "SOURCE=\(source)"), ("DEST=backup.example.com:/backup/data", "DEST=\(destination)")])
        let copied = try spool.enqueue(["--handler", "rsync", "--key", "backup", "--", "photos/2026-12-01"])
        let escaping = try spool.enqueue(["--handler", "rsync", "--key", "bad1", "--", "../../etc"])
        let option = try spool.enqueue(["--handler", "rsync", "--key", "bad2", "--", "--delete"])
        let empty = try spool.enqueue(["--handler", "rsync", "--key", "bad3", "--", ""])
        let missing = try spool.enqueue(["--handler", "rsync", "--key", "bad4", "--", "photos/none"])
        let run = try spool.send(fixture.options)
        #expect(spool.read("failed", empty + ".why").contains("must stay inside"), "\(run.stderr)")
        #expect(spool.read("failed", missing + ".why").contains("does not exist"), "a typo is filed, not retried")
        #expect(FileManager.default.contents(atPath: destination + "/photos/2026-12-01/a.jpg") == Data("jpeg".utf8))
        #expect(!spool.names("new").contains { $0.hasPrefix(copied) })
        for id in [escaping, option] {
            let why = spool.read("failed", id + ".why")
            #expect(why.contains("exit-status: 65") && why.contains("must stay inside"), "\(why)")
        }
    }

    @Test func sendmailGetsTheMessageWithAStableMessageID() throws {
        let spool = TemporarySpool(), fixture = HandlerFixture()
        // A stand-in for the MTA: records its arguments and input, and says "try later" once.
        let fake = fixture.script("fake-sendmail", """
            printf '%s\\n' "$*" >> WORK/argv
            cat >> WORK/mail
            if [ ! -e WORK/accepted ]; then touch WORK/accepted; exit 75; fi
            """)
        try install("sendmail", into: fixture, [("/usr/sbin/sendmail", fake)])
        let message = "To: ops@example.com\nSubject: disk\n\ndisk full on db1\n"
        let id = try spool.enqueue([
            "--handler", "sendmail", "--key", "mail:ops", "--idempotency-key", "mail-42", "--body", message
        ])
        try spool.send(fixture.options)
        #expect(
            spool.waiting().first { $0.id == id }?.state?.lastError == "tempfail", "EX_TEMPFAIL from the MTA is retried"
        )
        try spool.send(fixture.options + ["--flush"])
        #expect(spool.names("new").isEmpty)
        #expect(fixture.lines("argv") == ["-t -oi", "-t -oi"])
        let mails = fixture.lines("mail")
        #expect(
            mails.filter { $0 == "Message-ID: <mail-42@spool.invalid>" }.count == 2,
            "the same id on both runs: \(mails)")
        #expect(mails.filter { $0 == "disk full on db1" }.count == 2)
        let withArguments = try spool.enqueue(["--handler", "sendmail", "--", "-C/tmp/evil.cf"])
        try spool.send(fixture.options)
        #expect(spool.read("failed", withArguments + ".why").contains("exit-status: 64"))
    }

    /// spool-enqueue(1)'s mail example, run as printed against the shipped handler (a stand-in MTA behind
    /// it): the job is accepted, and the mail reaches sendmail whole.
    @Test func theDocumentedMailExampleRunsAgainstTheShippedHandler() throws {
        let spool = TemporarySpool(), fixture = HandlerFixture()
        let fake = fixture.script("fake-sendmail", "cat >> WORK/mail")
        try install("sendmail", into: fixture, [("/usr/sbin/sendmail", fake)])
        let page = try ManPageExamples.blocks(in: "spool-enqueue.1").flatMap(ManPageExamples.commandLines)
        let example = try #require(page.first { $0.hasPrefix("printf 'To: ops@example.com") && $0.contains("--handler sendmail") },
                                   "spool-enqueue(1) shows the mail example")
        let queued = try Command.run("/bin/sh", ["-c", example], environment: [
            "PATH": "\(Command.products):/usr/bin:/bin"], workingDirectory: spool.directory)
        #expect(queued.status == 0, "\(queued.stderr)")
        try spool.send(fixture.options)
        #expect(spool.names("new").isEmpty && spool.names("failed").isEmpty, "\(spool.names("failed"))")
        #expect(fixture.lines("mail").contains("disk full on db1") && fixture.lines("mail").contains("To: ops@example.com"))
    }
}
