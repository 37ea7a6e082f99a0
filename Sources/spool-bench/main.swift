// spool-bench: measures enqueue, claim, delivery, idle cost, growth and wake-up latency, each beside a
// baseline measured in the same run, and prints a table. Not a test: nothing here asserts a time.
import Glibc
import Spool

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "claim-worker", arguments.count == 2 {
    claimWorker(arguments[1])
    exit(0)
}
if arguments.contains("-h") || arguments.contains("--help") {
    print("""
        OVERVIEW: Measure spool against baselines in the same run and print a table of ratios.

        USAGE: spool-bench [--quick]

        OPTIONS:
          --quick                 Small sizes and few repetitions (under a minute), for CI smoke use.
          -h, --help              Show help information.
        """)
    exit(0)
}
for argument in arguments where argument != "--quick" {
    Program.usageFailure("spool-bench", .unknownOption(argument), usage: "spool-bench [--quick]")
}

signal(SIGPIPE, SIG_IGN)
let config = Config(quick: arguments.contains("--quick"), binaries: Program.siblingExecutable("").trimmingSuffix("/"))
let report = Report()
let started = now()
var system = utsname()
uname(&system)
let kernel = withUnsafeBytes(of: &system.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
print("spool-bench \(config.quick ? "--quick " : "")on \(sysconf(Int32(_SC_NPROCESSORS_ONLN))) cores, Linux \(kernel), \(Timestamp.formatRFC3339(Timestamp.now()))")
print("each figure: median (min–max) of \(config.repetitions) runs unless said otherwise; baselines measured in this run")

let server = BenchServer()
benchEnqueue(report, config)
benchClaims(report, config)
benchDelivery(report, config, server)
benchSecureDelivery(report, config)
benchFarOrigin(report, config)
benchIdle(report, config)
benchGrowth(report, config, server)
server.stop()
benchWakeup(report, config)

print("\n== Summary (\(fmt(now() - started)) s)\n")
print(report.table())
Fixtures.cleanUp()

extension String {
    func trimmingSuffix(_ suffix: String) -> String { hasSuffix(suffix) ? String(dropLast(suffix.count)) : self }
}
