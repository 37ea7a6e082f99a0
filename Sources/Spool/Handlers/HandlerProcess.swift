import CSpool
import Glibc
import SpoolDocument
import SpoolNames
import SpoolSystem

/// One run of a handler: started directly (no shell) in a process group of its own, fed the job's body on
/// standard input, its output kept up to a bound, and stopped at its deadline: SIGTERM to the group, then
/// SIGKILL when the handler has gone or after `graceSeconds`.
package struct HandlerProcess: Sendable {
    /// How a run ended.
    package enum Ending: Sendable, Equatable {
        case exited(Int32)
        case signaled(Int32)
        /// Past its deadline: stopped by spool-send.
        case timedOut
        /// Its status could not be read (something else reaped it): it may have done its work.
        case unknown
    }

    /// What the run left.
    package struct Result: Sendable, Equatable {
        /// How the run ended.
        package var ending: Ending
        /// The end of what it wrote to standard output, and how much it wrote.
        package var output: OutputTail
        /// The end of what it wrote to standard error, and how much it wrote.
        package var errors: OutputTail
    }

    /// Seconds between SIGTERM and SIGKILL.
    package static let graceSeconds = 5.0
    /// The longest a run lasts past its timeout: the grace, then as long again for SIGKILL to take.
    package static let longestOverrunSeconds = 2 * graceSeconds

    /// The path of the handler, run directly.
    package let program: String
    /// Its argv, argv[0] being the program.
    package let arguments: [String]
    /// Its whole environment, as `NAME=value` strings.
    package let environment: [String]
    /// The job's body, written to its standard input (none when empty).
    package let input: [UInt8]
    /// How long it may run before SIGTERM.
    package let timeoutSeconds: Double

    /// A run of `program` with `arguments` (argv[0] is the program), `environment` (`NAME=value`) and `input`.
    package init(program: String, arguments: [String], environment: [String], input: [UInt8], timeoutSeconds: Double) {
        self.program = program
        self.arguments = arguments
        self.environment = environment
        self.input = input
        self.timeoutSeconds = timeoutSeconds
    }

    /// Runs it to its end; blocks the calling thread. Throws only when it could not be started.
    package func run() throws(Errno) -> Result {
        let pipes = try HandlerProcess.pipes(3)
        let (stdin, stdout, stderr) = (pipes[0], pipes[1], pipes[2])
        let pid: Int32
        do {
            // Our ends only (each end of a pipe is its own open file): a blocking one would hold the
            // supervisor past the handler's deadline.
            for fd in [stdin.write, stdout.read, stderr.read] { try fd.setNonBlocking() }
            pid = try spawn(stdin.read, stdout.write, stderr.write)
        } catch {
            pipes.forEach { $0.read.close(); $0.write.close() }
            throw error
        }
        // The child's ends are the child's now.
        [stdin.read, stdout.write, stderr.write].forEach { $0.close() }
        let exit = cspool_pidfd_open(pid)
        var streams = HandlerStreams(input: input.isEmpty ? nil : stdin.write, output: stdout.read, errors: stderr.read,
                                     exit: exit >= 0 ? FileDescriptor(rawValue: exit) : nil)
        if input.isEmpty { stdin.write.close() }
        let (ended, timedOut) = supervise(pid, &streams)
        streams.closeAll()
        var code: Int32 = 0, signal: Int32 = 0
        // A handler that SIGKILL did not end (stuck in the kernel) is left unreaped rather than waited for.
        let ending: Ending
        if !ended || cspool_reap(pid, &code, &signal) != 0 {
            ending = .unknown
        } else {
            ending = timedOut ? .timedOut : signal != 0 ? .signaled(signal) : .exited(code)
        }
        return Result(ending: ending, output: streams.outputTail, errors: streams.errorTail)
    }

    /// `count` new pipes, or none: those made before a failure are closed.
    package static func pipes(_ count: Int) throws(Errno) -> [(read: FileDescriptor, write: FileDescriptor)] {
        var made: [(read: FileDescriptor, write: FileDescriptor)] = []
        do {
            for _ in 0..<count { made.append(try FileDescriptor.pipe()) }
        } catch {
            made.forEach { $0.read.close(); $0.write.close() }
            throw error
        }
        return made
    }

    /// Starts the program in a process group of its own with these descriptors as 0, 1 and 2; returns its pid.
    package func spawn(_ input: FileDescriptor, _ output: FileDescriptor, _ errors: FileDescriptor) throws(Errno)
        -> Int32
    {
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: Int32 = 0
        let rc = cspool_spawn(program, argv, envp, input.rawValue, output.rawValue, errors.rawValue, &pid)
        guard rc == 0 else { throw Errno(rawValue: rc) }
        return pid
    }

    /// Pumps the streams until the handler ends, stopping it at the deadline. Returns whether it ended (and
    /// can be reaped) and whether it had to be stopped. The handler is left unreaped, so that its process
    /// group cannot be reused while signals are sent to it.
    package func supervise(_ pid: Int32, _ streams: inout HandlerStreams) -> (ended: Bool, timedOut: Bool) {
        let deadline = Timestamp.monotonicSeconds() + timeoutSeconds
        var killAt: Double?, giveUpAt = Double.infinity
        var state = cspool_child_ended(pid)
        while state == 0 {
            let nowSeconds = Timestamp.monotonicSeconds()
            if nowSeconds >= giveUpAt { return (false, true) }
            if killAt == nil, nowSeconds >= deadline {
                kill(-pid, SIGTERM)
                killAt = nowSeconds + HandlerProcess.graceSeconds
            } else if let at = killAt, nowSeconds >= at {
                kill(-pid, SIGKILL)
                killAt = .infinity
                giveUpAt = nowSeconds + HandlerProcess.graceSeconds
            }
            let until = min(killAt ?? deadline, giveUpAt) - nowSeconds
            // The pidfd wakes the poll when the handler exits; without one (before Linux 5.3), open streams
            // do, and after they close a short tick finds the moment it exits.
            let tick = streams.exit != nil ? 1000.0 : streams.isOpen ? 50 : 1
            streams.pump(milliseconds: Int32(max(0, min(tick, (until * 1000).rounded(.up)))), input: input)
            state = cspool_child_ended(pid)
        }
        // -1: the status is gone (another reaper), and with it any safe way to signal the group.
        guard state == 1 else { return (false, killAt != nil) }
        streams.drain()
        // Whatever the handler left running in its group goes with it; after a timeout, without a second chance.
        kill(-pid, killAt == nil ? SIGTERM : SIGKILL)
        return (true, killAt != nil)
    }
}
