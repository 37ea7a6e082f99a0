import Glibc

/// A finished child process: exit status, wall time, CPU time and peak resident memory.
struct Finished {
    let status: Int32
    let seconds: Double
    let maxResidentKB: Int
    /// User plus system time of the child and the children it waited for.
    var cpuSeconds: Double = 0
}

/// Starts a program with posix_spawn; standard output and error go to `output` (a path) or /dev/null.
func spawn(_ argv: [String], environment: [String: String] = [:], output: String = "/dev/null") -> pid_t {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_APPEND, 0o644)
    posix_spawn_file_actions_addopen(
        &actions, 2, output == "/dev/null" ? "/dev/null" : output + ".err", O_WRONLY | O_CREAT | O_APPEND, 0o644)
    var env = [String: String]()
    var index = 0
    while let entry = environ[index] {
        let text = String(cString: entry)
        if let eq = text.firstIndex(of: "=") { env[String(text[..<eq])] = String(text[text.index(after: eq)...]) }
        index += 1
    }
    env.merge(environment) { $1 }
    let cArgs = argv.map { strdup($0) } + [nil]
    let cEnv = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
        cArgs.forEach { free($0) }
        cEnv.forEach { free($0) }
        posix_spawn_file_actions_destroy(&actions)
    }
    var pid: pid_t = 0
    let result = posix_spawn(&pid, argv[0], &actions, nil, cArgs, cEnv)
    precondition(result == 0, "cannot start \(argv[0]): \(String(cString: strerror(result)))")
    return pid
}

/// Waits for a child, with its peak resident memory.
func wait(_ pid: pid_t, started: Double) -> Finished {
    var status: Int32 = 0
    var usage = rusage()
    while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
    let exit = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    let cpu =
        Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec)
        / 1e6
    return Finished(status: exit, seconds: now() - started, maxResidentKB: Int(usage.ru_maxrss), cpuSeconds: cpu)
}

/// Runs a program to completion.
@discardableResult
func run(_ argv: [String], environment: [String: String] = [:], output: String = "/dev/null") -> Finished {
    let started = now()
    return wait(spawn(argv, environment: environment, output: output), started: started)
}

/// Runs a POSIX sh script to completion.
@discardableResult
func shell(_ script: String, environment: [String: String] = [:]) -> Finished {
    run(["/bin/sh", "-c", script], environment: environment)
}

/// Whether a program is on PATH.
func which(_ program: String) -> String? {
    // SPOOL_BENCH_MISSING (names separated by commas) shows what the cases print on a machine without them.
    let missing = getenv("SPOOL_BENCH_MISSING").map { String(cString: $0).split(separator: ",") } ?? []
    if missing.contains(Substring(program)) { return nil }
    for dir in (getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin").split(separator: ":") {
        let path = "\(dir)/\(program)"
        if access(path, X_OK) == 0 { return path }
    }
    for dir in ["/usr/sbin", "/sbin"] where access("\(dir)/\(program)", X_OK) == 0 { return "\(dir)/\(program)" }
    return nil
}

/// Reads a whole small file.
func readText(_ path: String) -> String {
    guard let file = fopen(path, "r") else { return "" }
    defer { fclose(file) }
    var out = [UInt8]()
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = fread(&buffer, 1, buffer.count, file)
        if n <= 0 { break }
        out += buffer[0..<n]
    }
    return String(decoding: out, as: UTF8.self)
}

/// Writes a small file.
func writeText(_ path: String, _ text: String) {
    let file = fopen(path, "w")!
    fputs(text, file)
    fclose(file)
}
