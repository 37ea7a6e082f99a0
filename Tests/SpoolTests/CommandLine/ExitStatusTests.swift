import Foundation
import Testing

/// Each program's `--help` lists the same exit statuses as its man page's EXIT STATUS: a user who reads
/// either learns what a cron line's status means (spool-send's help once listed 73 and not 66).
@Suite struct ExitStatusTests {
    /// The statuses a `--help` lists after `EXIT STATUS:`: each number that begins an item (the text's first,
    /// or one after a comma or a line start), `73/74` counting as both.
    static func helped(_ help: String) -> Set<Int> {
        guard let range = help.range(of: "EXIT STATUS:") else { return [] }
        let text = help[range.upperBound...].replacingOccurrences(of: "\n", with: ", ")
        var codes: Set<Int> = []
        for item in text.components(separatedBy: ", ") {
            let first = item.trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? ""
            for part in first.split(separator: "/") { if let code = Int(part) { codes.insert(code) } }
        }
        return codes
    }

    /// The statuses a man page's EXIT STATUS section lists: each `.TP` item's `.B N` or `.BR "N, M"`.
    static func documented(_ page: String) -> Set<Int> {
        let text = (try? String(contentsOfFile: Repository.root + "/man/" + page, encoding: .utf8)) ?? ""
        guard let start = text.range(of: ".SH EXIT STATUS\n") else { return [] }
        let section = text[start.upperBound...].components(separatedBy: "\n.SH ").first ?? ""
        let lines = section.split(separator: "\n", omittingEmptySubsequences: false)
        var codes: Set<Int> = []
        for (index, line) in lines.enumerated() where line == ".TP" && index + 1 < lines.count {
            let item = lines[index + 1].replacingOccurrences(of: "\"", with: "")
            guard item.hasPrefix(".B") else { continue }
            for word in item.split(whereSeparator: { $0 == " " || $0 == "," }).dropFirst() {
                if let code = Int(word) { codes.insert(code) }
            }
        }
        return codes
    }

    @Test(arguments: [("spool-send", "spool-send.8"), ("spool-enqueue", "spool-enqueue.1"), ("spool-ctl", "spool-ctl.8")])
    func helpAndManPageListTheSameStatuses(program: String, page: String) throws {
        let help = try Command.run(program, ["--help"])
        let listed = Self.helped(help.stdout), documented = Self.documented(page)
        #expect(!listed.isEmpty && listed == documented, "\(program) --help: \(listed.sorted()); \(page): \(documented.sorted())")
    }
}
