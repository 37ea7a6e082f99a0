
/// Why a queue file could not be read: its own content, which files it in `failed/`, or a fault of the
/// spool or the system, which leaves it where it is.
package enum ReadError: Error, CustomStringConvertible {
    /// The file can never be sent.
    case rejected(Rejection)
    /// The spool could not read it now.
    case fault(SystemCallError)
    /// The file has a second name in the spool, left by a move cut short: resolve it under the lock.
    case twin(Spool.Twin)

    /// The rejection's or the fault's own message, or what a twin is and which run resolves it.
    package var description: String {
        switch self {
        case let .rejected(rejection): rejection.description
        case let .fault(fault): fault.description
        case let .twin(twin):
            "one of two names of a move cut short by a crash (the other is "
                + "\(twin.folder.rawValue)/\(twin.name.escaped)); the next spool-send run keeps one"
        }
    }
}
