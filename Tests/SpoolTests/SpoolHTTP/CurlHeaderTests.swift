import Foundation
import Testing

/// Sources/CCurl declares libcurl's API by hand so that building needs no -dev package; this compares
/// each constant it declares with the real curl/curl.h, when that is installed (.ci/run installs it).
@Suite struct CurlHeaderTests {
    /// Debian installs it under the multiarch include directory.
    static let header = [
        "/usr/include/curl/curl.h", "/usr/include/x86_64-linux-gnu/curl/curl.h",
        "/usr/include/aarch64-linux-gnu/curl/curl.h"
    ]
    .first { FileManager.default.fileExists(atPath: $0) }

    @Test(.enabled(if: header != nil && FileManager.default.isExecutableFile(atPath: "/usr/bin/cc"),
                   "needs /usr/include/curl/curl.h (libcurl4-openssl-dev) and cc"))
    func declaredConstantsMatchLibcurl() throws {
        let ours = try String(contentsOfFile: Repository.root + "/Sources/CCurl/include/CCurl.h", encoding: .utf8)
        var checks: [String] = []
        for line in ours.split(separator: "\n") {
            // `    CCURLNAME = VALUE,` where VALUE may be an expression such as `0x200000 + 22`.
            let text = line.trimmingCharacters(in: .whitespaces)
            guard text.hasPrefix("CCURL"), text.hasSuffix(","), let equals = text.firstIndex(of: "=") else { continue }
            let theirs = String(text[..<equals].dropFirst()).trimmingCharacters(in: .whitespaces)
            let value = String(text[text.index(after: equals)...].dropLast()).trimmingCharacters(in: .whitespaces)
            checks.append(
                "if ((long)(\(value)) != (long)(\(theirs))) { printf(\"%s: ours %ld, libcurl %ld\\n\", \"\(theirs)\", "
                    + "(long)(\(value)), (long)(\(theirs))); bad = 1; }"
            )
        }
        #expect(checks.count > 60, "found \(checks.count) constants")
        let directory = NSTemporaryDirectory() + "spool-curlcheck-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let program =
            "#include <curl/curl.h>\n#include <stdio.h>\nint main(void) { int bad = 0;\n"
            + checks.joined(separator: "\n")
            + "\nif (sizeof(CURLMsg) != 24) { puts(\"CURLMsg size\"); bad = 1; }\nreturn bad; }\n"
        try program.write(toFile: directory + "/check.c", atomically: true, encoding: .utf8)
        let result = try Command.run(
            "/bin/sh", ["-c", "cc -o '\(directory)/check' '\(directory)/check.c' && '\(directory)/check'"])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    }
}
