import Glibc

/// Where the delivery cases run their processes, on a machine of two CPUs or more: nginx (and its worker) on
/// CPU 0, what is measured (spool-send, curl, the engine-alone loop in this process, Python) on the others.
///
/// Why: left to the scheduler, the same run of the same binary took 1.65 s or 2.34 s for 20,000 writes, as the
/// server and the sender's threads happened to share a core or not, and a row's three repetitions spanned 2x;
/// placed so, repetitions agree within a few percent, and a change of 10 % shows.
enum Placement {
    /// The CPUs online.
    static let cpus = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
    /// Whether processes are placed: two CPUs or more, and taskset (util-linux) to start the server with.
    static let places = cpus >= 2 && which("taskset") != nil

    /// What the header says of it.
    static var description: String {
        places
            ? "nginx on CPU 0, what is measured on CPU\(cpus > 2 ? "s 1–\(cpus - 1)" : " 1")"
            : "left to the scheduler (\(cpus < 2 ? "one CPU" : "no taskset"))"
    }

    /// A server's command line, started on CPU 0 when placing.
    static func server(_ argv: [String]) -> [String] {
        places ? [which("taskset")!, "-c", "0"] + argv : argv
    }

    /// Runs `body` with this process (every thread of it), and what it starts meanwhile, off CPU 0.
    static func measured(_ body: () -> Void) {
        guard places else { return body() }
        set("1-\(cpus - 1)")
        defer { set("0-\(cpus - 1)") }
        body()
    }

    /// Sets the CPUs of every thread of this process (`taskset -a -p`; Swift's Glibc does not declare
    /// `sched_setaffinity`). A refusal leaves the figures to the scheduler, as without placement.
    private static func set(_ list: String) {
        _ = run([which("taskset")!, "-a", "-p", "-c", list, "\(getpid())"])
    }
}
