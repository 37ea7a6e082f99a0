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

/// Every example in the man pages works as printed: each command line of ours is accepted (no usage
/// error, no refused operation), each document is an operation, each spool.conf(5) excerpt parses.
@Suite struct ManPageExampleTests {
    static let programs = ["spool-enqueue", "spool-ctl", "spool-send"]

    /// The example's command line made runnable here: programs from the build (not /usr/local/bin), files
    /// a cron line writes into the working directory, and jq left out where the machine has none.
    static func runnable(_ line: String) -> String? {
        var command = line.hasPrefix("* * * * * ") ? String(line.dropFirst(10)) : line
        if command.hasPrefix("ExecStart=") { command = String(command.dropFirst(10)) }
        command = command.replacingOccurrences(of: "/usr/local/bin/", with: "").replacingOccurrences(
            of: "/var/lib/node_exporter/", with: "./")
        if !FileManager.default.isExecutableFile(atPath: "/usr/bin/jq"), let pipe = command.range(of: " | jq") {
            command = String(command[..<pipe.lowerBound])
        }
        let words = command.split(whereSeparator: { $0 == " " || $0 == "|" }).map(String.init)
        return words.contains { programs.contains($0) } ? command : nil
    }

    @Test(arguments: ["spool-send.8", "spool-enqueue.1", "spool-ctl.8", "spool.5", "spool.conf.5"])
    func examplesRunAsPrinted(page: String) throws {
        let spool = TemporarySpool()
        var ran = 0
        for block in try ManPageExamples.blocks(in: page) {
            if block.hasPrefix("{") {
                #expect(throws: Never.self, "\(page): the document example is an operation") {
                    _ = try Operation(bytes: Array(block.utf8))
                }
                ran += 1
                continue
            }
            if page == "spool.conf.5", !block.contains("$") {
                let text = block.contains("[default]") || block.hasPrefix("[") ? block : "[default]\n" + block
                #expect(throws: Never.self, "\(page): \(block)") {
                    _ = try SpoolConfiguration.parse(text, path: "spool.conf")
                }
                ran += 1
                continue
            }
            // A block showing a session: the lines after the prompt are the commands, the rest their output.
            let prompted = block.split(separator: "\n").contains { $0.hasPrefix("$ ") }
            for line in ManPageExamples.commandLines(block) {
                if prompted && !line.hasPrefix("$ ") { continue }
                guard let command = Self.runnable(prompted ? String(line.dropFirst(2)) : line) else { continue }
                // No request leaves the machine: every origin but a closed local port is refused unsent.
                let result = try Command.run("/bin/sh", ["-c", command], environment: [
                    "PATH": "\(Command.products):/usr/bin:/bin", "SPOOL_ALLOW_ORIGINS": "http://127.0.0.1:9",
                ], timeout: 30, workingDirectory: spool.directory)
                #expect(![64, 65, 70, 127].contains(result.status) && !result.stderr.contains("Usage:"),
                        "\(page): \(command) exited \(result.status): \(result.stderr)")
                ran += 1
            }
        }
        #expect(ran > 0, "\(page) has examples that were run")
    }
}
