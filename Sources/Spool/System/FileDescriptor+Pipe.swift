import CSpool
import Glibc

/// Pipes for talking to a child process without blocking: the calls `HandlerProcess` makes.
extension FileDescriptor {
    /// A new pipe, both ends close-on-exec (a child gets them only as its 0, 1 or 2).
    package static func pipe() throws(Errno) -> (read: FileDescriptor, write: FileDescriptor) {
        var ends: [Int32] = [-1, -1]
        try retryingInterrupts { ends.withUnsafeMutableBufferPointer { cspool_pipe_cloexec($0.baseAddress!) } }
        return (FileDescriptor(rawValue: ends[0]), FileDescriptor(rawValue: ends[1]))
    }

    /// Makes reads and writes return EAGAIN instead of waiting.
    package func setNonBlocking() throws(Errno) {
        let flags = try retryingInterrupts { fcntl(rawValue, F_GETFL) }
        try retryingInterrupts { fcntl(rawValue, F_SETFL, flags | O_NONBLOCK) }
    }

    /// Reads what is there, at most `buffer.count` bytes: 0 at end of file, nil when nothing is there yet.
    package func readAvailable(into buffer: inout [UInt8]) throws(Errno) -> Int? {
        do {
            return try retryingInterrupts {
                buffer.withUnsafeMutableBytes { Glibc.read(rawValue, $0.baseAddress, $0.count) }
            }
        } catch .wouldBlock {
            return nil
        }
    }

    /// Writes what the pipe takes now of `bytes[offset...]`: the count written, 0 when it is full.
    package func writeAvailable(_ bytes: [UInt8], from offset: Int) throws(Errno) -> Int {
        do {
            return try retryingInterrupts {
                bytes.withUnsafeBytes { Glibc.write(rawValue, $0.baseAddress! + offset, $0.count - offset) }
            }
        } catch .wouldBlock {
            return 0
        }
    }
}
