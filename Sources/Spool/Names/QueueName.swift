import SpoolSystem

/// A queue file's name taken apart: `ID`, `ID:STATE` in `new/`, `ID:STATE@CLAIM` in `cur/`.
package struct QueueName: Equatable, Sendable {
    /// The operation id.
    package var id: String
    /// Retry state; nil for a file a producer dropped under a plain name that no worker has admitted yet.
    package var state: RetryState?
    /// The claim, for names in `cur/`.
    package var claim: Claim?

    /// A name from its parts.
    package init(id: String, state: RetryState?, claim: Claim? = nil) {
        self.id = id
        self.state = state
        self.claim = claim
    }

    /// Parses a directory entry's name; nil when it is neither a valid id nor a valid id with state.
    package init?(_ name: FileName) {
        // Byte-wise: this runs for every file of a large queue in every round.
        let bytes = name.bytes
        guard let colon = bytes.lastIndex(of: UInt8(ascii: ":")) else {
            guard let text = name.string, OperationID.isValid(text) else { return nil }
            self.init(id: text, state: nil)
            return
        }
        guard OperationID.isValid(bytes: bytes[..<colon]) else { return nil }
        var end = bytes.count
        var claim: Claim?
        if let at = bytes[(colon + 1)...].firstIndex(of: UInt8(ascii: "@")) {
            guard let text = String(validating: bytes[(at + 1)...], as: UTF8.self),
                let parsed = Claim(text: Substring(text))
            else { return nil }
            claim = parsed
            end = at
        }
        guard let state = RetryState(bytes: bytes[(colon + 1)..<end]) else { return nil }
        self.init(id: String(decoding: bytes[..<colon], as: UTF8.self), state: state, claim: claim)
    }

    /// The file name for these parts.
    package var fileName: FileName {
        var text = id
        if let state { text += ":" + state.text }
        if let claim { text += "@" + claim.text }
        return FileName(text)
    }
}
