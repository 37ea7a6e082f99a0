import Foundation
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

/// The man pages render without warnings and document exactly the options the commands print in --help.
@Suite struct ManPageTests {
    static let root = Repository.root
    static let pages = ["spool-send.8", "spool-enqueue.1", "spool-ctl.8", "spool.5", "spool.conf.5"]
    static let sections = [
        "NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "ENVIRONMENT", "FILES", "EXIT STATUS", "EXAMPLES", "SEE ALSO"
    ]

    @Test(arguments: pages) func rendersWithoutWarnings(page: String) throws {
        let path = "\(Self.root)/man/\(page)"
        let groff = try Command.run("/usr/bin/groff", ["-man", "-t", "-Tutf8", "-ww", "-z", path])
        #expect(groff.status == 0)
        #expect(groff.stderr.isEmpty, "groff warnings: \(groff.stderr)")
        let man = try Command.run(
            "/usr/bin/man", ["--warnings", "-l", path], environment: ["MANWIDTH": "80", "MAN_KEEP_FORMATTING": ""])
        #expect(man.status == 0)
        #expect(man.stderr.isEmpty, "man warnings: \(man.stderr)")
        for section in Self.sections {
            #expect(man.stdout.contains("\n\(section)\n"), "\(page) has a \(section) section")
        }
    }

    /// Long and short options in a text: `--name` and `-x`.
    static func options(in text: String) -> Set<String> {
        let pattern = try! NSRegularExpression(pattern: #"(?<![\w-])(--[a-z][a-z-]*[a-z]|-[a-zA-Z])(?![\w-])"#)
        let range = NSRange(text.startIndex..., in: text)
        return Set(pattern.matches(in: text, range: range).map { String(text[Range($0.range, in: text)!]) })
    }

    /// The OPTIONS section of a rendered page.
    static func optionsSection(_ page: String) throws -> String {
        let man = try Command.run("/usr/bin/man", ["-l", "\(root)/man/\(page)"], environment: ["MANWIDTH": "200"])
        let text = man.stdout.replacingOccurrences(of: "\u{2010}", with: "-")
        guard let start = text.range(of: "\nOPTIONS\n"), let end = text.range(of: "\nENVIRONMENT\n") else { return "" }
        return String(text[start.upperBound..<end.lowerBound])
    }

    @Test(arguments: [
        ("spool-send", "spool-send.8", [[String]]()), ("spool-enqueue", "spool-enqueue.1", []),
        (
            "spool-ctl", "spool-ctl.8",
            [
                ["init"], ["list"], ["shape"], ["show"], ["stats"], ["retry"], ["flush"], ["hold"], ["release"],
                ["resolve"], ["pending"], ["discard"], ["check"], ["cgi"]
            ]
        )
    ])
    func helpAndPageNameTheSameOptions(program: String, page: String, subcommands: [[String]]) throws {
        var help = try Command.run(program, ["--help"]).stdout
        for subcommand in subcommands { help += try Command.run(program, subcommand + ["--help"]).stdout }
        // Only the OPTIONS parts of --help list options; other parts may mention them in prose.
        let helpOptions = Self.options(in: help.components(separatedBy: "OPTIONS:").dropFirst().map {
            $0.components(separatedBy: "\n\n").first ?? ""
        }.joined(separator: "\n"))
        let pageOptions = Self.options(in: try Self.optionsSection(page))
        #expect(!helpOptions.isEmpty)
        #expect(
            helpOptions.subtracting(pageOptions).isEmpty,
            "in --help but not in \(page): \(helpOptions.subtracting(pageOptions).sorted())")
        #expect(
            pageOptions.subtracting(helpOptions).isEmpty,
            "in \(page) but not in --help: \(pageOptions.subtracting(helpOptions).sorted())")
    }
}

/// The errno table is written once in the code and once in spool-send(8): the two must agree.
@Suite struct FaultTableTests {
    @Test func pageListsEveryErrnoInItsClass() throws {
        let page = try String(contentsOfFile: "\(ManPageTests.root)/man/spool-send.8", encoding: .utf8)
        guard let start = page.range(of: "errno\tclass\twhat happens\n"),
            let end = page[start.upperBound...].range(of: ".TE")
        else {
            Issue.record("spool-send.8 has no fault table")
            return
        }
        var documented: [String: String] = [:]
        for row in page[start.upperBound..<end.lowerBound].split(separator: "\n") {
            let cells = row.split(separator: "\t")
            guard cells.count == 3 else { continue }
            documented[String(cells[0])] = String(cells[1])
        }
        for (number, kind) in ErrnoClass.table {
            let name = Errno(rawValue: number).symbolicName
            #expect(
                documented[name] == "\(kind)",
                "\(name) is \(kind) in ErrnoClass.swift, \(documented[name] ?? "missing") in spool-send(8)")
        }
        #expect(documented.count == ErrnoClass.table.count, "the page lists only errnos the table has")
    }

    /// What a 429 or 503 does to the attempt count is said one way everywhere: kept (the code's
    /// `OperationStateMachine.Action.unclaim`; `PacedOriginTests.a429KeepsTheOperationsPlaceAndItsAttempts`).
    @Test func every429SaysTheAttemptIsKept() throws {
        for file in ["README.md"] + ManPageTests.pages.map({ "man/" + $0 }) {
            let text = try String(contentsOfFile: "\(ManPageTests.root)/\(file)", encoding: .utf8)
            #expect(!text.contains("counts the attempt as before"), "\(file) says a 429 counts the attempt")
        }
        let conf = try String(contentsOfFile: "\(ManPageTests.root)/man/spool.conf.5", encoding: .utf8)
        #expect(conf.contains("unchanged: no attempt is counted"), "spool.conf(5) says what the code does")
    }
}
