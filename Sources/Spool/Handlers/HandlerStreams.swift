import Glibc
import SpoolSystem

/// A running handler's standard input, output and error, seen from spool-send: the body written as the
/// handler takes it, output read as it comes, so that neither side waits on a full pipe.
package struct HandlerStreams {
    /// Our end of the handler's standard input; nil once the body is all written or the handler closed it.
    package var input: FileDescriptor?
    /// Our end of its standard output; nil once at its end.
    package var output: FileDescriptor?
    /// Our end of its standard error; nil once at its end.
    package var errors: FileDescriptor?
    /// The handler's pidfd: readable once it has ended.
    package var exit: FileDescriptor?
    /// Bytes of the body written so far.
    package var written = 0
    /// What the handler wrote to standard output, bounded.
    package var outputTail = OutputTail()
    /// What the handler wrote to standard error, bounded.
    package var errorTail = OutputTail()
    /// The buffer every read goes through, allocated once (64 KiB).
    package var buffer = [UInt8](repeating: 0, count: 64 * 1024)

    /// Our ends of the handler's streams, already non-blocking.
    package init(input: FileDescriptor?, output: FileDescriptor, errors: FileDescriptor, exit: FileDescriptor?) {
        self.input = input
        self.output = output
        self.errors = errors
        self.exit = exit
    }

    /// Whether the handler may still read or write any of them.
    package var isOpen: Bool { input != nil || output != nil || errors != nil }

    /// Waits up to `milliseconds` for any stream to be ready, and moves what it can.
    package mutating func pump(milliseconds: Int32, input body: [UInt8]) {
        var fds: [pollfd] = []
        if let input { fds.append(pollfd(fd: input.rawValue, events: Int16(POLLOUT), revents: 0)) }
        if let output { fds.append(pollfd(fd: output.rawValue, events: Int16(POLLIN), revents: 0)) }
        if let errors { fds.append(pollfd(fd: errors.rawValue, events: Int16(POLLIN), revents: 0)) }
        if let exit { fds.append(pollfd(fd: exit.rawValue, events: Int16(POLLIN), revents: 0)) }
        let ready = fds.withUnsafeMutableBufferPointer { poll($0.baseAddress, nfds_t($0.count), milliseconds) }
        guard ready > 0 else { return }
        for fd in fds where fd.revents != 0 && fd.fd != exit?.rawValue {
            if fd.fd == input?.rawValue { feed(body) } else { read(from: fd.fd) }
        }
    }

    /// Writes more of the body; closes standard input when it is all written or the handler closed its end.
    package mutating func feed(_ body: [UInt8]) {
        guard let fd = input else { return }
        do { written += try fd.writeAvailable(body, from: written) } catch {
            // EPIPE: the handler does not want (the rest of) its input; its exit status says how that went.
            written = body.count
        }
        if written >= body.count {
            fd.close()
            input = nil
        }
    }

    /// Reads what output or errors hold; closes the stream at its end.
    package mutating func read(from raw: Int32) {
        let isOutput = raw == output?.rawValue
        guard let fd = isOutput ? output : errors else { return }
        let count: Int?
        do { count = try fd.readAvailable(into: &buffer) } catch { count = 0 }
        guard let count else { return }
        if count == 0 {
            fd.close()
            if isOutput { output = nil } else { errors = nil }
        } else if isOutput {
            outputTail.append(buffer[0..<count])
        } else {
            errorTail.append(buffer[0..<count])
        }
    }

    /// After the handler ended: what its streams still hold, without waiting for a child that kept them open.
    package mutating func drain() {
        for _ in 0..<64 {
            let before = outputTail.total + errorTail.total
            for fd in [output, errors].compactMap({ $0 }) { read(from: fd.rawValue) }
            if outputTail.total + errorTail.total == before { return }
        }
    }

    /// Closes every descriptor still open, the pidfd included, and forgets them.
    package mutating func closeAll() {
        for fd in [input, output, errors, exit].compactMap({ $0 }) { fd.close() }
        exit = nil
        input = nil
        output = nil
        errors = nil
    }
}
