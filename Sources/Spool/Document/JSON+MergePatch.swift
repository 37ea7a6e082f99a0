
extension JSON {
    /// This value with `patch` applied as a JSON Merge Patch (RFC 7396, section 2): an object patch sets its
    /// members, removes those it sets to null and merges nested objects; any other patch replaces the whole.
    /// Applying the same patch twice gives what applying it once gave.
    package func mergePatched(with patch: JSON) -> JSON {
        guard case let .object(changes) = patch else { return patch }
        var members: [(key: String, value: JSON)]
        if case let .object(existing) = self { members = existing } else { members = [] }
        for (key, change) in changes {
            let index = members.firstIndex { $0.key == key }
            if case .null = change {
                if let index { members.remove(at: index) }
            } else if let index {
                members[index].value = members[index].value.mergePatched(with: change)
            } else {
                members.append((key, JSON.null.mergePatched(with: change)))
            }
        }
        return .object(members)
    }
}
