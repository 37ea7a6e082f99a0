import Foundation

/// The summary of a run as a page (`--markdown FILE`, the repository's BENCHMARKS.md): what was measured on
/// which machine, by which command, how to read it, and the table. Replaced whole by each run worth keeping;
/// earlier figures live in git.
struct BenchmarkPage {
    let machine: String
    let date: String
    let command: String
    let seconds: String
    let eachFigure: String
    let placement: String
    let table: String

    /// The page's text.
    var text: String {
        """
        # Benchmarks

        - Made by: `\(command)`, after `swift build -c release`, in \(seconds) s.
        - Machine: \(machine), \(date).
        - Beside spool: \(BenchmarkPage.versions()).
        - Each figure: \(eachFigure).
        - Delivery cases: \(placement).

        ## How to read it

        Each row sets a spool figure beside a baseline measured in the same run, on the same machine: the *ratio*
        (spool / baseline, or for a cost baseline / spool as the row says) is what carries from one machine to
        another, not the figures themselves. Queues are made afresh for each repetition and synced to disk before
        it is timed, as a user's queue is. A *target* is the ratio spool aims for, and says whether this run met
        it; "n/a" means a baseline's program was not installed. `bin/spool-bench --help` lists the cases; `--only
        CASE` runs one.

        The machine's noise shows in the ranges: compare ratios within one run, never figures across runs, and
        read a range as much as its median. The CPU row moves between two levels on a disk that discards freed
        blocks inside `unlink` (the run says so when it counts them): the interrupts are charged to spool's
        sending thread when it shares their CPU, never to the floor's lone loop, which sleeps through them.
        To compare two builds, run the old and the new binaries in turn on the same machine, twice.

        ## Figures

        \(table)
        """
    }

    /// Writes the page to `path`, replacing what was there.
    func write(to path: String) throws {
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// The versions of the servers and tools the baselines use, as each reports itself; "absent" when missing.
    static func versions() -> String {
        let tools: [(String, [String])] = [
            ("nginx", ["/usr/sbin/nginx", "-v"]), ("curl", ["/usr/bin/curl", "--version"]),
            ("wrk", ["/usr/bin/wrk", "--version"]), ("python3", ["/usr/bin/python3", "--version"]),
        ]
        return tools.map { name, argv in "\(name) \(firstLine(argv).map { String($0) } ?? "absent")" }
            .joined(separator: "; ")
    }

    /// The first line a program prints on either stream, less its program name's words.
    static func firstLine(_ argv: [String]) -> Substring? {
        guard FileManager.default.isExecutableFile(atPath: argv[0]) else { return nil }
        let process = Process(), pipe = Pipe()
        process.executableURL = URL(fileURLWithPath: argv[0])
        process.arguments = Array(argv.dropFirst())
        process.standardOutput = pipe
        process.standardError = pipe
        guard (try? process.run()) != nil else { return nil }
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let line = output.split(separator: "\n").first ?? ""
        // "nginx version: nginx/1.22.1", "curl 7.88.1 (x86_64…) libcurl/7.88.1 …", "wrk 4.1.0 …", "Python 3.11.2".
        let version = line.split(separator: " ").first { $0.contains(where: \.isNumber) }
        return version.map { $0.split(separator: "/").last ?? $0 }
    }
}
