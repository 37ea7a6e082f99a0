import Foundation

/// The example blocks (`.EX` … `.EE`) of the man pages as a reader copies them from the rendered page:
/// roff's escapes undone, one string per block.
enum ManPageExamples {
    /// Each example block of `page` (a file name in `man/`), in order.
    static func blocks(in page: String) throws -> [String] {
        let text = try String(contentsOfFile: "\(Repository.root)/man/\(page)", encoding: .utf8)
        var blocks: [String] = [], current: [String]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line == ".EX" { current = [] } else if line == ".EE" {
                if let current { blocks.append(current.joined(separator: "\n")) }
                current = nil
            } else if current != nil {
                current!.append(unescape(String(line)))
            }
        }
        return blocks
    }

    /// A line of roff as it renders: `\-` is `-`, `\e` a backslash, `\(aq` a quote, font changes vanish.
    static func unescape(_ line: String) -> String {
        var text = line
        for (escape, plain) in [("\\(aq", "'"), ("\\(dq", "\""), ("\\-", "-"), ("\\&", ""), ("\\fB", ""), ("\\fI", ""),
                                ("\\fR", ""), ("\\fP", ""), ("\\e", "\\")] {
            text = text.replacingOccurrences(of: escape, with: plain)
        }
        return text
    }

    /// The shell command lines of a block, continuation lines (ending in `\`, `|` or `&&`) joined.
    static func commandLines(_ block: String) -> [String] {
        var lines: [String] = [], pending = ""
        for line in block.split(separator: "\n") {
            if line.hasSuffix("\\") {
                pending += line.dropLast() + " "
            } else if line.hasSuffix("|") || line.hasSuffix("&&") {
                pending += line + " "
            } else {
                lines.append(pending + line)
                pending = ""
            }
        }
        return lines
    }
}
