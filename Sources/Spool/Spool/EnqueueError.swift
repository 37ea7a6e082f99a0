import SpoolDocument
import SpoolSystem

/// Why an operation could not be enqueued.
package enum EnqueueError: Error, CustomStringConvertible {
    case invalid(OperationError)
    case write(path: String, Errno)
    case queueFull(String)
    /// A batch of more writes than the queue may ever hold (`limit`, from `option`): waiting cannot help.
    case batchTooLarge(count: Int, limit: Int64, option: String)
    /// The spool's file system keeps less free space than `--min-free` asks for.
    case spaceLow(String)
    case otherFileSystem(path: String)
    /// The payload read from its input grew past `limit`.
    case payloadTooLarge(size: Int64, limit: Int64)
    /// The payload's input could not be read.
    case payloadUnreadable(source: String, Errno)

    /// The message for the producer: the cause, and what to do where something can be done.
    package var description: String {
        switch self {
        case let .invalid(error): "invalid operation: \(error)"
        case let .write(path, error):
            if error.isTemporary {
                "cannot write \(path): \(error); nothing was enqueued, try again when there is room"
            } else {
                "cannot write \(path): \(error); nothing was enqueued"
            }
        case let .queueFull(why):
            "the queue is full (\(why)); nothing was enqueued, try again after spool-send has caught up"
        case let .batchTooLarge(count, limit, option):
            "the batch holds \(count) writes, more than the queue may hold (\(limit), \(option)); nothing was "
                + "enqueued: split it into batches of at most \(limit)"
        case let .spaceLow(why):
            "the spool's file system is nearly full (\(why)); nothing was enqueued, try again when there is room"
        case let .otherFileSystem(path):
            "\(path) is on another mount than new/ (a bind mount?), so the rename into new/ cannot be atomic; nothing "
                + "was enqueued"
        case let .payloadTooLarge(size, limit):
            "the payload is \(size) bytes or more, over the limit of \(limit) bytes (--max-payload); nothing was "
                + "enqueued"
        case let .payloadUnreadable(source, error):
            "cannot read the payload from \(source): \(error); nothing was enqueued"
        }
    }

    /// The sysexits code: 65 for a bad document, 75 when retrying later may work, 74 otherwise.
    package var exitCode: Int32 {
        switch self {
        case .invalid, .payloadTooLarge, .batchTooLarge: ExitCode.dataError
        case .payloadUnreadable: ExitCode.noInput
        case .queueFull, .spaceLow: ExitCode.temporaryFailure
        case .otherFileSystem: ExitCode.ioError
        case let .write(_, error): error.isTemporary ? ExitCode.temporaryFailure : ExitCode.ioError
        }
    }
}
