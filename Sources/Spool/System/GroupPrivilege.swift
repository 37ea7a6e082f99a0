import Glibc

/// The drop group of a program installed set-group-ID (spool-enqueue in a shared spool, as Postfix's postdrop):
/// it works as its caller, with the real group, and takes the drop group only to place the operation, so that
/// the group never opens a file the caller names (`--payload`, `-d @file`, `--document`).
package struct GroupPrivilege: Sendable {
    /// The set-group-ID group given up at start; nil when the program was not run set-group-ID.
    package let saved: gid_t?

    /// No group set aside: the program was not run set-group-ID.
    package static let none = GroupPrivilege(saved: nil)

    /// Gives up the set-group-ID group, if the program has one: the effective group becomes the real one, and
    /// the saved one stays available to `whileRaised`.
    package static func setAside() -> GroupPrivilege {
        let effective = getegid(), real = getgid()
        guard effective != real else { return GroupPrivilege(saved: nil) }
        // Cannot fail: the real group is always one a process may take.
        _ = setegid(real)
        return GroupPrivilege(saved: effective)
    }

    /// Runs `body` with the set-group-ID group as the effective one, then gives it up again.
    package func whileRaised<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        guard let saved else { return try body() }
        _ = setegid(saved)
        defer { _ = setegid(getgid()) }
        return try body()
    }
}
