/// A queue file's name taken apart: `ID`, `ID:STATE` in `new/`, `ID:STATE@CLAIM` in `cur/`.
public struct QueueName: Equatable, Sendable {
    /// The operation id.
    public var id: String
    /// Retry state; nil for a file a producer dropped under a plain name that no worker has admitted yet.
    public var state: RetryState?
    /// The claim, for names in `cur/`.
    public var claim: Claim?

    /// A name from its parts.
    public init(id: String, state: RetryState?, claim: Claim? = nil) {
        self.id = id
        self.state = state
        self.claim = claim
    }

    /// Parses a directory entry's name; nil when it is neither a valid id nor a valid id with state.
    public init?(_ name: FileName) {
        guard let text = name.string else { return nil }
        guard let colon = text.lastIndex(of: ":") else {
            guard OperationID.isValid(text) else { return nil }
            self.init(id: text, state: nil)
            return
        }
        let id = String(text[..<colon])
        guard OperationID.isValid(id) else { return nil }
        var rest = text[text.index(after: colon)...]
        var claim: Claim?
        if let at = rest.firstIndex(of: "@") {
            guard let parsed = Claim(text: rest[rest.index(after: at)...]) else { return nil }
            claim = parsed
            rest = rest[..<at]
        }
        guard let state = RetryState(text: rest) else { return nil }
        self.init(id: id, state: state, claim: claim)
    }

    /// The file name for these parts.
    public var fileName: FileName {
        var text = id
        if let state { text += ":" + state.text }
        if let claim { text += "@" + claim.text }
        return FileName(text)
    }
}
