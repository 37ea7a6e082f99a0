import SpoolSystem

/// What a move of a queue file came to, in nullmailer's three outcomes: made, found gone (another worker or
/// an operator moved it first, and now owns it), or a fault of the system, which leaves the file where it was.
package enum MoveResult<Moved: Sendable>: Sendable {
    /// The move was made; `Moved` is what it made (the claimed entry, the name filed under), or `()`.
    case moved(Moved)
    /// The file was not there: someone else moved it first.
    case gone
    /// The system failed the move, with what was being done and where; the file stays where it was.
    case fault(SystemCallError)

    /// Whether the move was made.
    package var wasMoved: Bool {
        if case .moved = self { true } else { false }
    }

    /// What the move made, or nil when it was not made.
    package var value: Moved? {
        if case let .moved(value) = self { value } else { nil }
    }

    /// The fault, if the system failed the move.
    package var fault: SystemCallError? {
        if case let .fault(fault) = self { fault } else { nil }
    }

    /// The result of `move`, whose `noSuchFileOrDirectory` means gone and whose other errors are faults of
    /// `action` on `path` (made only then: a claim must not pay for a message it does not need).
    static func of(_ action: String, _ path: @autoclosure () -> String, _ move: () throws(Errno) -> Moved) -> MoveResult
    {
        do {
            return .moved(try move())
        } catch .noSuchFileOrDirectory {
            return .gone
        } catch {
            return .fault(SystemCallError(action, path(), error))
        }
    }
}
