/// What `--last-error` selects: operations whose last attempt ended with an HTTP status (`503`), a class of
/// them (`5xx`), or a failure without an answer as `list --json` shows it in `last_error` (`timeout`,
/// `refused`, `tls`, `handler`…), so that an operator retries what one outage filed and nothing else.
package struct LastError: Sendable, Equatable {
    /// The text given, lowercased: a token, or a class such as `5xx`.
    package let pattern: String

    /// Nil for a text that no last error can be: empty, or with characters no token has.
    package init?(_ text: String) {
        let lowered = text.lowercased()
        let allowed = lowered.allSatisfy { $0 == "-" || ("a"..."z").contains($0) || ("0"..."9").contains($0) }
        guard !lowered.isEmpty, allowed else { return nil }
        pattern = lowered
    }

    /// Whether an operation whose last attempt ended with `token` (a status or a failure's token) is selected.
    package func matches(_ token: String?) -> Bool {
        guard let token else { return false }
        if pattern == token { return true }
        // A class: three characters, a digit then "xx", against a three-digit status of that digit.
        let wanted = Array(pattern.utf8), given = Array(token.utf8)
        guard wanted.count == 3, wanted[1] == 0x78, wanted[2] == 0x78, given.count == 3 else { return false }
        return wanted[0] == given[0] && given.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }
}
