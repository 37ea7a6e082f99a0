import Foundation
import Testing

/// Each command's synopsis is written twice, in `--help` and in its man page: both must name the same options
/// with the same argument names. README.md, a front page, shows no synopsis.
@Suite struct SynopsisTests {
    /// Each option in a synopsis with its argument's name (lower-cased; "" for a flag).
    static func options(in synopsis: String) -> [String: String] {
        let text = synopsis.replacingOccurrences(of: "\u{2010}", with: "-").split(whereSeparator: \.isWhitespace)
            .joined(separator: " ")
        let pattern = try! NSRegularExpression(
            pattern: #"(?<![\w-])(--[a-z][a-z0-9.-]*[a-z0-9]|-[a-zA-Z])(?: ('[^']*'|[A-Za-z][A-Za-z|_-]*))?"#)
        var found: [String: String] = [:]
        for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
            let option = String(text[Range(match.range(at: 1), in: text)!])
            let argument = Range(match.range(at: 2), in: text).map { String(text[$0]).lowercased() } ?? ""
            found[option] = argument
        }
        return found
    }

    /// The USAGE part of a help text: from `USAGE:` to the first blank line.
    static func usage(_ help: String) -> String {
        guard let start = help.range(of: "USAGE:") else { return "" }
        return String(help[start.upperBound...].prefix { _ in true }.components(separatedBy: "\n\n")[0])
    }

    /// The rendered SYNOPSIS of a page, unwrapped.
    static func pageSynopsis(_ page: String) throws -> String {
        let man = try Command.run(
            "/usr/bin/man", ["-l", "\(Repository.root)/man/\(page)"], environment: ["MANWIDTH": "2000"])
        guard let start = man.stdout.range(of: "\nSYNOPSIS\n"), let end = man.stdout.range(of: "\nDESCRIPTION\n") else {
            return ""
        }
        return String(man.stdout[start.upperBound..<end.lowerBound])
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
    func helpAndPageAgree(program: String, page: String, subcommands: [[String]]) throws {
        var help = ""
        for arguments in subcommands.isEmpty ? [["--help"]] : subcommands.map({ $0 + ["--help"] }) {
            help += Self.usage(try Command.run(program, arguments).stdout) + "\n"
        }
        let fromHelp = Self.options(in: help), fromPage = Self.options(in: try Self.pageSynopsis(page))
        #expect(fromHelp.count > 1, "found the options of \(program) --help: \(help)")
        #expect(
            fromHelp == fromPage,
            Comment(rawValue: "\(program) --help against \(page): \(fromHelp.sorted { $0.key < $1.key }) "
                + "\(fromPage.sorted { $0.key < $1.key })")
        )
    }
}
