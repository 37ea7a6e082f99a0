import CSpool
import Glibc

/// One run of a handler: started directly (no shell) in a process group of its own, fed the job's body on
/// standard input, its output kept up to a bound, and stopped at its deadline: SIGTERM to the group, then
/// SIGKILL when the handler has gone or after `grace`.
public struct HandlerProcess: Sendable {
    /// How a run ended.
    public enum Ending: Sendable, Equatable {
        case exited(Int32)
        case signaled(Int32)
        /// Past its deadline: stopped by spool-send.
        case timedOut
        /// Its status could not be read (something else reaped it): it may have done its work.
        case unknown
    }

    /// What the run left.
    public struct Result: Sendable, Equatable {
        public var ending: Ending
        public var output: OutputTail
        public var errors: OutputTail
    }

    /// Seconds between SIGTERM and SIGKILL.
    public static let grace = 5.0
    /// The longest a run lasts past its timeout: the grace, then as long again for SIGKILL to take.
    public static let longestOverrun = 2 * grace

    let program: String
    let arguments: [String]
    let environment: [String]
    let input: [UInt8]
    let timeout: Double

    /// A run of `program` with `arguments` (argv[0] is the program), `environment` (`NAME=value`) and `input`.
    public init(program: String, arguments: [String], environment: [String], input: [UInt8], timeout: Double) {
        self.program = program
        self.arguments = arguments
        self.environment = environment
        self.input = input
        self.timeout = timeout
    }

    /// Runs it to its end; blocks the calling thread. Throws only when it could not be started.
    public func run() throws(Errno) -> Result {
        let stdin = try FileDescriptor.pipe()
        let stdout: (read: FileDescriptor, write: FileDescriptor), stderr: (read: FileDescriptor, write: FileDescriptor)
        do { stdout = try FileDescriptor.pipe() } catch { stdin.read.close(); stdin.write.close(); throw error }
        do { stderr = try FileDescriptor.pipe() } catch { [stdin.read, stdin.write, stdout.read, stdout.write].forEach { $0.close() }; throw error }
        let pid: Int32
        do { pid = try spawn(stdin.read, stdout.write, stderr.write) } catch {
            [stdin.read, stdin.write, stdout.read, stdout.write, stderr.read, stderr.write].forEach { $0.close() }
            throw error
        }
        [stdin.read, stdout.write, stderr.write].forEach { $0.close() }
        let exit = cspool_pidfd_open(pid)
        var streams = HandlerStreams(input: input.isEmpty ? nil : stdin.write, output: stdout.read, errors: stderr.read,
                                     exit: exit >= 0 ? FileDescriptor(rawValue: exit) : nil)
        if input.isEmpty { stdin.write.close() }
        let (ended, timedOut) = supervise(pid, &streams)
        streams.closeAll()
        var code: Int32 = 0, signal: Int32 = 0
        // A handler that SIGKILL did not end (stuck in the kernel) is left unreaped rather than waited for.
        let reaped = ended && cspool_reap(pid, &code, &signal) == 0
        let ending: Ending = timedOut && reaped ? .timedOut : !reaped ? .unknown : signal != 0 ? .signaled(signal) : .exited(code)
        return Result(ending: ending, output: streams.outputTail, errors: streams.errorTail)
    }

    func spawn(_ input: FileDescriptor, _ output: FileDescriptor, _ errors: FileDescriptor) throws(Errno) -> Int32 {
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
    func supervise(_ pid: Int32, _ streams: inout HandlerStreams) -> (ended: Bool, timedOut: Bool) {
        let deadline = Timestamp.monotonicSeconds() + timeout
        var killAt: Double?, giveUpAt = Double.infinity
        var state = cspool_child_ended(pid)
        while state == 0 {
            let now = Timestamp.monotonicSeconds()
            if now >= giveUpAt { return (false, true) }
            if killAt == nil, now >= deadline {
                kill(-pid, SIGTERM)
                killAt = now + HandlerProcess.grace
            } else if let at = killAt, now >= at {
                kill(-pid, SIGKILL)
                killAt = .infinity
                giveUpAt = now + HandlerProcess.grace
            }
            let until = min(killAt ?? deadline, giveUpAt) - now
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
