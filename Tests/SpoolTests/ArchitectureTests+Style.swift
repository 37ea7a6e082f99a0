import Foundation
import Testing

extension ArchitectureTests {
    /// Lines of Swift under Sources/ fit in 120 characters, as ARCHITECTURE.md says; the text inside a
    /// multi-line string (a shell script, a page) and a line with a raw literal (a JSON document) are exempt.
    @Test func sourceLinesFitIn120Characters() throws {
        var found: [String] = []
        // Every target but the C shims (CCurl, CSpool, CCrypto), which hold no Swift.
        let folders = try FileManager.default.contentsOfDirectory(atPath: Self.root + "/Sources").sorted().filter {
            !($0.hasPrefix("C") && $0.dropFirst().first?.isUppercase == true)
        }
        #expect(folders.contains("Spool") && folders.contains("spool-bench"), "\(folders)")
        for folder in folders {
            for (path, text) in try Self.sources("Sources/" + folder) {
                var insideString = false
                for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    // An odd count of triple quotes opens or closes a multi-line string.
                    if line.components(separatedBy: "\"\"\"").count % 2 == 0 {
                        insideString.toggle()
                        continue
                    }
                    if insideString || line.contains("#\"") { continue }
                    if line.count > 120 { found.append("\(path):\(index + 1) (\(line.count))") }
                }
            }
        }
        #expect(found.isEmpty, "lines longer than 120 characters: \(found)")
    }

    /// The package ships programs, not a library: nothing outside it links a module of its, so no declaration
    /// is `public`; `package` is what crosses a module. A `public` would claim an API that nobody promised.
    @Test func noDeclarationIsPublic() throws {
        var found: [String] = []
        for (path, text) in try Self.sources("Sources") {
            for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false)[0]
                if code.split(whereSeparator: { !$0.isLetter }).contains("public") {
                    found.append("\(path):\(index + 1)")
                }
            }
        }
        #expect(found.isEmpty, "public declarations: \(found)")
    }
}
