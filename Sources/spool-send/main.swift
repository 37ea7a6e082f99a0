import Glibc
import Spool
import SpoolHTTP

let program = "spool-send"
let usage = "spool-send [--spool DIR] [--once | --watch] [--flush] [--concurrency N] [--timeout SECONDS] [...]"
let help = """
    OVERVIEW: Deliver the HTTP writes queued in a spool: in order per key, with backoff, once in effect.

    USAGE: spool-send [--spool DIR] [--once | --watch] [--flush] [--concurrency N] [--timeout SECONDS]
                      [--min-backoff S] [--max-backoff S] [--lifetime DURATION] [--auth-dir DIR]
                      [--max-size BYTES] [-v | -q]

    OPTIONS:
      --spool DIR             The spool directory (default: $SPOOL_DIR, else ./spool).
      --once                  Send everything that is due, then exit (default; what cron runs).
      --watch                 Keep running: send files as they land in new/ (inotify) and retries when due.
      --flush                 Ignore retry times for this run, still in order (like postqueue -f).
      --concurrency N         Keys sent in parallel (default: 4).
      --timeout SECONDS       Give up on one request after SECONDS in all (default: 30).
      --min-backoff S         Delay after a first failed attempt, doubling after each (default: 30).
      --max-backoff S         Longest delay between attempts (default: 3600).
      --lifetime DURATION     Fail operations not delivered this long after enqueue (default: 5d).
      --auth-dir DIR          Credential profiles for operations with "auth" (default: $SPOOL_AUTH_DIR).
      --max-size BYTES        Fail documents larger than BYTES (default: 1048576).
      -v, --verbose           Say what happens to every operation.
      -q, --quiet             Say only what needs an operator (failures, conflicts, spool errors).
      -h, --help              Show help information.

    EXIT STATUS:
      0 done (even if some operations were deferred), 64 usage error, 73/74 spool unusable.

    """

var arguments = Arguments()
var spoolOption: String?
var watch = false
var options = WorkerOptions()
var timeout = 30.0
var authDirectory: String?
var level = Log.Level.normal

func seconds(_ option: String, _ text: String) throws(UsageError) -> Int64 {
    guard let value = Timestamp.parseDuration(text) else {
        throw .invalidValue(option: option, value: text, expected: "a duration such as 30, 30s, 15m, 2h or 5d")
    }
    return value
}

do throws(UsageError) {
    var mode: String?
    while let token = arguments.next() {
        switch token {
        case .option("-h"), .option("--help"):
            Program.printOut(help)
            exit(0)
        case .option("--spool"): spoolOption = try arguments.value(for: "--spool")
        case .option("--once"), .option("--watch"):
            guard case let .option(name) = token else { break }
            try arguments.noValue(for: name)
            if let mode, mode != name { throw .conflicting(mode, name) }
            mode = name
            watch = name == "--watch"
        case .option("--flush"):
            try arguments.noValue(for: "--flush")
            options.flush = true
        case .option("--concurrency"):
            let text = try arguments.value(for: "--concurrency")
            guard let n = Int(text), (1...256).contains(n) else { throw .invalidValue(option: "--concurrency", value: text, expected: "an integer from 1 to 256") }
            options.concurrency = n
        case .option("--timeout"):
            let text = try arguments.value(for: "--timeout")
            guard let n = Double(text), n > 0, n <= 86400 else { throw .invalidValue(option: "--timeout", value: text, expected: "seconds, more than 0") }
            timeout = n
        case .option("--min-backoff"): options.backoff.minimum = try seconds("--min-backoff", try arguments.value(for: "--min-backoff"))
        case .option("--max-backoff"): options.backoff.maximum = try seconds("--max-backoff", try arguments.value(for: "--max-backoff"))
        case .option("--lifetime"): options.lifetime = try seconds("--lifetime", try arguments.value(for: "--lifetime"))
        case .option("--auth-dir"): authDirectory = try arguments.value(for: "--auth-dir")
        case .option("--max-size"):
            let text = try arguments.value(for: "--max-size")
            guard let n = Int(text), n > 0 else { throw .invalidValue(option: "--max-size", value: text, expected: "a positive number of bytes") }
            options.maxSize = n
        case .option("-v"), .option("--verbose"): level = .verbose
        case .option("-q"), .option("--quiet"): level = .quiet
        case let .option(name): throw .unknownOption(name)
        case let .positional(value): throw .unexpectedArgument(value)
        }
    }
    options.backoff = Backoff(minimum: options.backoff.minimum, maximum: options.backoff.maximum)
} catch {
    Program.usageFailure(program, error, usage: usage)
}

let log = Log(program: program, level: level)
options.log = log
options.lease = Int64(timeout) + 300
options.credentials = Credentials.defaultDirectory(option: authDirectory).map(Credentials.init(directory:))

let spool: Spool
do { spool = try Spool(path: Spool.defaultPath(option: spoolOption)) } catch {
    Program.fail(program, error.description, code: error.exitCode)
}
let wakeup: Wakeup
do { wakeup = try Wakeup(watching: watch ? "\(spool.path)/new" : nil) } catch {
    Program.fail(program, "cannot watch \(spool.path)/new: \(error)", code: ExitCode.ioError)
}
let worker = Worker(spool: spool, transport: URLSessionTransport(timeout: timeout, connections: options.concurrency), options: options)
wakeup.onStopSignal { worker.requestStop() }

/// How often a watcher looks for claims left by dead workers and old files in tmp/.
let housekeepingInterval: Int64 = 60

worker.housekeeping()
var lastHousekeeping = Timestamp.now()
while true {
    let summary = await worker.run()
    if !watch || worker.isStopping { break }
    let now = Timestamp.now()
    if now - lastHousekeeping >= housekeepingInterval {
        worker.housekeeping()
        lastHousekeeping = now
    }
    var wait = Double(lastHousekeeping + housekeepingInterval - now)
    if let due = summary.nextDue { wait = min(wait, Double(max(due - now, 0)) + 0.01) }
    if await wakeup.wait(seconds: wait) == .stop { break }
}
exit(0)
