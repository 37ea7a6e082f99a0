import SpoolDocument
import SpoolNames
import SpoolSystem
import SpoolTransport

/// Why an entry in `new/` or `cur/` cannot be sent and goes to `failed/` instead.
package enum Rejection: Error, Equatable, CustomStringConvertible {
    case badName(String)
    case symbolicLink
    case notRegularFile(kind: String)
    case hardLinked(count: Int)
    case tooLarge(size: Int, limit: Int)
    case payloadTooLarge(size: Int64, limit: Int64)
    case payloadChanged(size: Int64, expected: Int64)
    case unreadable(Errno)
    case closedToSender(owner: UInt32, mode: UInt32)
    case foreignOrder(producer: UInt32)
    case invalid(OperationError)

    /// What is wrong with the file, for the reason it is filed with.
    package var description: String {
        switch self {
        case let .badName(why): "bad file name: \(why); operation ids are printable ASCII without spaces or / : @ \\"
        case .symbolicLink: "a symbolic link, not an operation file; spool never follows links"
        case let .notRegularFile(kind): "a \(kind), not a regular file"
        case let .hardLinked(count):
            "the file has \(count) hard links; a queue file must have exactly one so that it cannot alias a file "
                + "outside the spool"
        case let .tooLarge(size, limit): "the file is \(size) bytes, more than the limit of \(limit) bytes"
        case let .payloadTooLarge(size, limit):
            "the payload is \(size) bytes, more than the limit of \(limit) bytes (--max-payload, max-payload in "
                + "spool.conf)"
        case let .payloadChanged(size, expected):
            "the file changed under the sender: it is \(size) bytes where its document and payload were \(expected); "
                + "a producer must not write a file after its rename into new/, and nothing short was sent"
        case let .unreadable(error): "cannot read the file: \(error)"
        case let .closedToSender(owner, mode):
            "the file (mode \(String(mode & 0o7777, radix: 8)), dropped by \(UserDatabase.display(owner))) cannot be "
                + "read by the sender; in a shared spool a dropped file must be readable by its group (mode 0640, "
                + "as spool-enqueue makes it)"
        case let .foreignOrder(producer):
            "its name puts it in an order (k=) that is not its document's key as dropped by "
                + "\(UserDatabase.display(producer)): a name written by hand to hold back another's writes, or a file "
                + "whose owner changed after it was queued ('spool-ctl retry' queues it again in its own order)"
        case let .invalid(error): "invalid operation: \(error)"
        }
    }

    /// A short token for file names and metrics.
    package var token: String {
        switch self {
        case .badName, .foreignOrder: "bad-name"
        case .symbolicLink: "symlink"
        case .notRegularFile: "not-regular"
        case .hardLinked: "hard-link"
        case .tooLarge, .payloadTooLarge: "too-large"
        case .payloadChanged: "payload-changed"
        case .unreadable, .closedToSender: "unreadable"
        case .invalid: "invalid"
        }
    }
}
