// spool-bench: measures enqueue, claim, delivery, idle cost, growth, wake-up latency and handler jobs, each beside a
// baseline measured in the same run, and prints a table. Not a test: nothing here asserts a time.
import Glibc
import Spool
import SpoolConfiguration
import SpoolControl
import SpoolDocument
import SpoolHandlers
import SpoolNames
import SpoolQueue
import SpoolReporting
import SpoolSending
import SpoolSystem
import SpoolTransport

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "claim-worker", arguments.count == 2 {
    claimWorker(arguments[1])
    exit(0)
}
// For profiling by hand: `spool-bench fill SPOOL COUNT BASE` leaves COUNT admitted operations to BASE, synced,
// as the delivery case does before each timed run (perf record / strace -c of spool-send over them).
if arguments.first == "fill", arguments.count == 4, let count = Int(arguments[2]) {
    Fixtures.fill(arguments[1], count: count, base: arguments[3])
    Fixtures.settle()
    exit(0)
}
if arguments.contains("-h") || arguments.contains("--help") {
    print("""
        OVERVIEW: Measure spool against baselines in the same run and print a table of ratios.

        USAGE: spool-bench [--quick | --large] [--only CASE]... [--markdown FILE]

        OPTIONS:
          --quick                 Small sizes and few repetitions, for a smoke run.
          --large                 The growth case at 10,000, 100,000 and 1,000,000 queued operations
                                  (one key per 200), once each: it takes several minutes.
          --only CASE             Run only this case (enqueue, claims, delivery, https, far, idle, growth,
                                  wakeup, handlers, uploads, triage, pace); repeat for more.
          --markdown FILE         Also write the summary as a page (BENCHMARKS.md): the machine, the
                                  date, the command and how to read the ratios, then the table.
          -h, --help              Show help information.
        """)
    exit(0)
}
let cases = [
    "enqueue", "claims", "delivery", "https", "far", "idle", "growth", "wakeup", "handlers", "uploads", "triage",
    "pace",
]
var only = Set<String>()
var markdown: String?
var index = 0
while index < arguments.count {
    let argument = arguments[index]
    index += 1
    if argument == "--quick" || argument == "--large" { continue }
    if argument == "--only", index < arguments.count, cases.contains(arguments[index]) {
        only.insert(arguments[index])
        index += 1
        continue
    }
    if argument == "--markdown", index < arguments.count {
        markdown = arguments[index]
        index += 1
        continue
    }
    Program.usageFailure(
        "spool-bench", .unknownOption(argument),
        usage: "spool-bench [--quick | --large] [--only CASE]... [--markdown FILE]")
}
let chosen = only
/// Whether a case runs: all of them unless `--only` named some.
func wanted(_ name: String) -> Bool { chosen.isEmpty || chosen.contains(name) }

signal(SIGPIPE, SIG_IGN)
let config = Config(
    quick: arguments.contains("--quick"), large: arguments.contains("--large"),
    binaries: Program.siblingExecutable("").trimmingSuffix("/"))
let report = Report()
let started = now()
var system = utsname()
uname(&system)
let kernel = withUnsafeBytes(of: &system.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
let machine = "\(sysconf(Int32(_SC_NPROCESSORS_ONLN))) cores, Linux \(kernel)"
let date = Timestamp.formatRFC3339(Timestamp.nowSeconds())
let eachFigure = "median (min–max) of \(config.repetitions) runs unless said otherwise; baselines measured in this run"
print("spool-bench \(config.quick ? "--quick " : "")on \(machine), \(date)")
print("each figure: \(eachFigure)")
print("delivery cases: \(Placement.description)")

let server = BenchServer()
if wanted("enqueue") {
    benchEnqueue(report, config)
    benchBatch(report, config)
}
if wanted("claims") { benchClaims(report, config) }
if wanted("delivery") { Placement.measured { benchDelivery(report, config, server) } }
if wanted("https") { Placement.measured { benchSecureDelivery(report, config) } }
if wanted("far") { benchFarOrigin(report, config) }
if wanted("idle") { benchIdle(report, config) }
if wanted("growth") { Placement.measured { benchGrowth(report, config, server) } }
server.stop()
if wanted("wakeup") { benchWakeup(report, config) }
if wanted("handlers") { benchHandlers(report, config) }
if wanted("uploads") { benchUploads(report, config) }
if wanted("triage") { benchTriage(report, config) }
if wanted("pace") { benchPace(report, config) }

let seconds = fmt(now() - started)
print("\n== Summary (\(seconds) s)\n")
print(report.table())
if let markdown {
    let command = (["bin/spool-bench"] + arguments).joined(separator: " ")
    let page = BenchmarkPage(
        machine: machine, date: date, command: command, seconds: seconds, eachFigure: eachFigure,
        placement: Placement.description, table: report.table())
    do { try page.write(to: markdown) } catch { Program.printError("spool-bench: \(markdown): \(error)\n") }
}
Fixtures.cleanUp()

extension String {
    func trimmingSuffix(_ suffix: String) -> String { hasSuffix(suffix) ? String(dropLast(suffix.count)) : self }
}
