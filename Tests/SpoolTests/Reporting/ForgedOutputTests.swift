import Foundation
import Testing
@testable import Spool
@testable import SpoolSystem

/// Nothing a producer or a server wrote reaches a terminal or a log raw: one escaping rule
/// (`replacingControlCharacters`) for every text output; `--json` stays exact JSON.
@Suite struct ForgedOutputTests {
    static let escape = "\u{1B}"
    /// A key that would colour a terminal, set its title, and add a forged row.
    static let key = "k\u{1B}[31mred\u{1B}[0m\u{1B}]0;owned\u{07}\nFORGED  waiting  0  -  PUT  http://x/  -"

    @Test func listShowAndPendingEscapeWhatAProducerWrote() throws {
        let spool = TemporarySpool()
        let id = try spool.enqueue([
            "PUT", "http://127.0.0.1:9/a", "--key", Self.key, "--body", "b\u{1B}[2J\u{202E}dlrow\nsecond line",
        ])
        for arguments in [["list", "new"], ["list"], ["show", id], ["pending"]] {
            let result = try Command.run("spool-ctl", ["--spool", spool.path] + arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            #expect(!result.stdout.contains(Self.escape) && !result.stdout.contains("\u{07}"),
                    "\(arguments) prints an escape sequence: \(result.stdout)")
            #expect(!result.stdout.contains("\u{202E}"), "\(arguments) prints a bidi override")
            #expect(!result.lines.contains { $0.hasPrefix("FORGED") }, "\(arguments) prints a forged row")
            #expect(result.stdout.contains(#"k\x1b[31mred\x1b[0m\x1b]0;owned\x07\nFORGED"#),
                    "\(arguments) shows the key escaped: \(result.stdout)")
        }
        let list = try Command.run("spool-ctl", ["--spool", spool.path, "list", "new"])
        #expect(list.lines.count == 2, "a header and one row: \(list.stdout)")
        let json = try Command.run("spool-ctl", ["--spool", spool.path, "list", "new", "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(object?["key"] as? String == Self.key, "--json keeps the key exact: \(json.stdout)")
    }

    /// A handler's argument with a newline, in the line spool-send logs when it files the job.
    @Test func aLogLineCannotBeForged() throws {
        let spool = TemporarySpool()
        let fixture = HandlerFixture()
        fixture.script("fails", "exit 1")
        let forged = "x\nspool-send: forged -> done\u{1B}[31m"
        let id = try spool.enqueue(["--handler", "fails", "--", forged])
        let result = try Command.run(
            "spool-send", ["--spool", spool.path, "--once", "-v"] + fixture.options)
        #expect(spool.operations("failed") == [id], "\(result.stderr)")
        #expect(!result.stderr.split(separator: "\n").contains { $0.hasPrefix("spool-send: forged") },
                "\(result.stderr)")
        #expect(!result.stderr.contains(Self.escape), "\(result.stderr)")
        #expect(result.stderr.contains(#"x\nspool-send: forged -> done\x1b[31m"#), "\(result.stderr)")
    }

    @Test func theRuleEscapesC1AndBidiControlsAndKeepsLinesOnlyWhenAsked() {
        #expect("a\u{9B}31mb".replacingControlCharacters() == #"a\u009b31mb"#)
        #expect("\u{202E}x\u{2066}".replacingControlCharacters() == #"\u202ex\u2066"#)
        #expect("l1\nl2\t\u{1B}".replacingControlCharacters(keepingLines: true) == "l1\nl2\t\\x1b")
        #expect("l1\nl2".replacingControlCharacters() == #"l1\nl2"#)
        #expect("plain é ü 日本".replacingControlCharacters() == "plain é ü 日本")
    }
}
