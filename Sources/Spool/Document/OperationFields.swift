import SpoolNames
import SpoolSystem
import SpoolTransport

/// The readers of an operation document's fields, one per field, each throwing the error that names it.
package struct OperationFields {
    /// The operation document's members, taken out of the object once: every field is looked up in them, and
    /// a lookup in the document itself took them out again each time (a retain, a release and a closure).
    package let members: [(key: String, value: JSON)]

    /// The fields of `document`; a value other than an object has none.
    package init(document: JSON) {
        if case let .object(members) = document { self.members = members } else { members = [] }
    }

    /// Whether every UTF-8 byte of `text` passes `test`, read in place where the string's bytes lie together
    /// (a native string's do): through the string's UTF-8 view each byte cost some thirty instructions.
    package static func allBytes(of text: String, _ test: (UInt8) -> Bool) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { $0.allSatisfy(test) } ?? text.utf8.allSatisfy(test)
    }

    /// The value of `field`, nil when the document has none.
    package subscript(field: String) -> JSON? {
        // By index: each member compared in place, not copied out (its key and value retained) first; and by
        // length first, which a short string keeps in its bits, where comparing unequal texts calls the library.
        let length = field.utf8.count
        for index in members.indices where members[index].key.utf8.count == length && members[index].key == field {
            return members[index].value
        }
        return nil
    }

    /// The string `field`, or nil when absent; throws when it is there but not a string.
    package func string(_ field: String) throws(OperationError) -> String? {
        guard let value = self[field] else { return nil }
        guard case let .string(s) = value else {
            throw .wrongType(field: field, expected: "a string", found: value.typeName)
        }
        return s
    }

    /// The RFC 3339 date-time `field` in seconds since the epoch, or nil when absent.
    package func date(_ field: String) throws(OperationError) -> Int64? {
        guard let text = try string(field) else { return nil }
        guard let seconds = Timestamp.parseRFC3339(text) else { throw .invalidDate(field: field, value: text) }
        return seconds
    }

    /// The required `method`: a token, not a lower-case standard method, CONNECT or TRACE, nor a read without
    /// `allow_get`.
    package func method() throws(OperationError) -> String {
        guard let method = try string("method") else { throw .missingField("method") }
        guard !method.isEmpty, method.utf8.count <= 32, Self.allBytes(of: method, HTTPSyntax.isTokenCharacter) else {
            throw .invalidMethod(method)
        }
        // Methods are case-sensitive (RFC 9110, 9.1): `put` is not PUT, and a server answers it 501 or 405,
        // which would file the write. A lower-case form of a standard method is a typo, not a new method.
        // A method without a lower-case letter, the usual spelling, is its own upper case: no copy to compare.
        if !Self.allBytes(of: method, { $0 < UInt8(ascii: "a") || $0 > UInt8(ascii: "z") }) {
            let upper = method.uppercased()
            if Operation.standardMethods.contains(upper) { throw .methodCase(method, upper) }
        }
        if Operation.neverQueuedMethods.contains(method) { throw .unqueueableMethod(method) }
        if Operation.readMethods.contains(method), try !allowGet() { throw .readMethod(method) }
        return method
    }

    /// `allow_get`: the producer says that a GET, HEAD or OPTIONS is wanted for its effect (a heartbeat URL),
    /// since nobody reads the answer of a queued request.
    package func allowGet() throws(OperationError) -> Bool {
        guard let value = self["allow_get"] else { return false }
        guard case let .bool(flag) = value else {
            throw .wrongType(field: "allow_get", expected: "true or false", found: value.typeName)
        }
        return flag
    }

    /// The body's bytes, and whether they are JSON (sent as `application/json` unless a header says else).
    package func body() throws(OperationError) -> ([UInt8]?, Bool) {
        switch (self["body"], self["body_base64"]) {
        case (.some, .some): throw .conflictingFields("body", "body_base64")
        case let (.some(.string(text)), nil): return (Array(text.utf8), false)
        case let (.some(value), nil): return (Array(value.text.utf8), value != .null)
        case (nil, .some):
            guard let encoded = try string("body_base64"), let decoded = Base64.decode(encoded) else {
                throw .invalidBase64
            }
            return (decoded, false)
        case (nil, nil): return (nil, false)
        }
    }

    /// Whether the document says the body is the file's payload: everything after the document's line.
    package func payload(handler: String?) throws(OperationError) -> Bool {
        guard let value = self["payload"] else { return false }
        guard case let .bool(flag) = value else {
            throw .wrongType(field: "payload", expected: "true or false", found: value.typeName)
        }
        guard flag else { return false }
        if self["body"] != nil { throw .conflictingFields("payload", "body") }
        if self["body_base64"] != nil { throw .conflictingFields("payload", "body_base64") }
        if handler != nil {
            throw .invalidName(field: "payload", value: "true", why: "is for HTTP writes; a handler job takes \"body\"")
        }
        return true
    }

    /// `idempotency_key`, if any: 1 to 255 visible ASCII characters.
    package func idempotencyKey() throws(OperationError) -> String? {
        guard let key = try string("idempotency_key") else { return nil }
        guard !key.isEmpty, key.utf8.count <= 255, Self.allBytes(of: key, { $0 > 0x20 && $0 < 0x7F }) else {
            throw .invalidName(field: "idempotency_key", value: key, why: "must be 1 to 255 visible ASCII characters")
        }
        return key
    }

    /// `if_match`, if any: a non-empty entity tag without control characters.
    package func ifMatch() throws(OperationError) -> String? {
        guard let tag = try string("if_match") else { return nil }
        if tag.isEmpty || !Self.allBytes(of: tag, { $0 >= 0x20 && $0 != 0x7F }) {
            throw .invalidName(
                field: "if_match", value: tag, why: "must be a non-empty entity tag without control characters")
        }
        return tag
    }

    /// The ordering key `key`, if any (the caller falls back to the URL); never empty.
    package func key() throws(OperationError) -> String? {
        guard let key = try string("key") else { return nil }
        guard !key.isEmpty else { throw .invalidName(field: "key", value: key, why: "must not be empty") }
        return key
    }

    /// `depends_on`: the ids of operations that must be done first, each a valid id; empty when absent.
    package func dependsOn() throws(OperationError) -> [String] {
        guard let value = self["depends_on"] else { return [] }
        guard case let .array(items) = value else {
            throw .wrongType(field: "depends_on", expected: "an array of operation ids", found: value.typeName)
        }
        var ids: [String] = []
        for item in items {
            guard case let .string(id) = item else {
                throw .wrongType(
                    field: "depends_on", expected: "an array of operation ids",
                    found: "an array holding a \(item.typeName)")
            }
            guard OperationID.isValid(id) else {
                throw .invalidName(
                    field: "depends_on", value: id,
                    why: "is not an operation id (a file name without '/', ':' or control characters)")
            }
            ids.append(id)
        }
        return ids
    }

    /// `coalesce`: whether a newer operation with the same key may replace this one before its first attempt.
    package func coalesce() throws(OperationError) -> Bool { try flag("coalesce") }

    /// A field that is `true` or `false`, false when absent.
    package func flag(_ field: String) throws(OperationError) -> Bool {
        guard let value = self[field] else { return false }
        guard case let .bool(flag) = value else {
            throw .wrongType(field: field, expected: "true or false", found: value.typeName)
        }
        return flag
    }

    /// `merge`: only on a request whose body is JSON, never with a payload or a handler.
    package func merge(handler: String?, hasPayload: Bool, body: [UInt8]?) throws(OperationError) -> Bool {
        guard try flag("merge") else { return false }
        if handler != nil { throw .conflictingFields("merge", "handler") }
        if hasPayload { throw .conflictingFields("merge", "payload") }
        guard let body, (try? JSON.parse(body)) != nil else {
            throw .wrongType(field: "body", expected: "JSON (a \"merge\" write is a JSON Merge Patch, RFC 7396)",
                             found: body == nil ? "none" : "text that is not JSON")
        }
        return true
    }

    /// `max_attempts`, if any: an integer within `Operation.maxAttemptsRange`.
    package func maxAttempts() throws(OperationError) -> Int? {
        guard let value = self["max_attempts"] else { return nil }
        guard case let .number(text) = value else {
            throw .wrongType(field: "max_attempts", expected: "an integer", found: value.typeName)
        }
        guard let n = Int(text), Operation.maxAttemptsRange.contains(n) else {
            throw .outOfRange(field: "max_attempts", value: text, range: Operation.maxAttemptsRange)
        }
        return n
    }

    /// `priority`: an integer within `Operation.priorityRange`, 0 when absent.
    package func priority() throws(OperationError) -> Int {
        guard let value = self["priority"] else { return 0 }
        guard case let .number(text) = value else {
            throw .wrongType(field: "priority", expected: "an integer", found: value.typeName)
        }
        guard let n = Int(text), Operation.priorityRange.contains(n) else {
            throw .outOfRange(field: "priority", value: text, range: Operation.priorityRange)
        }
        return n
    }

    /// The credential profile `auth` names, if any: a file name directly inside the auth directory.
    package func auth() throws(OperationError) -> String? {
        try fileName("auth", what: "a profile name")
    }

    /// The handler's name, which can only name a file directly inside the handler directory.
    package func handler() throws(OperationError) -> String? {
        try fileName("handler", what: "a handler name")
    }

    /// A name looked up in an admin's directory (auth profiles, handlers): letters, digits, `.`, `-` and `_`,
    /// not starting with `.`, at most 64 bytes, so it can only name a file directly inside that directory.
    package func fileName(_ field: String, what: String) throws(OperationError) -> String? {
        guard let name = try string(field) else { return nil }
        guard !name.isEmpty, name.utf8.count <= 64, name.first != ".",
            name.utf8.allSatisfy({
                HTTPSyntax.isAlphanumeric($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_")
                    || $0 == UInt8(ascii: ".")
            })
        else {
            throw .invalidName(
                field: field, value: name,
                why: "must be \(what) of letters, digits, '.', '-' and '_' not starting with '.' (no '/')")
        }
        return name
    }

    /// Fields that only an HTTP request has.
    package func refuseHTTPFields(handler: String) throws(OperationError) {
        for field in ["method", "url", "headers", "if_match", "auth"] where self[field] != nil {
            throw .conflictingFields("handler", field)
        }
    }

    /// The most arguments a handler job carries, and their bytes in all.
    package static let argumentLimits = (count: 1024, bytes: 128 * 1024)

    /// The handler's arguments: strings without NUL, which no program could receive.
    package func arguments() throws(OperationError) -> [String] {
        guard let value = self["args"] else { return [] }
        let expected = "an array of strings"
        guard case let .array(items) = value else {
            throw .wrongType(field: "args", expected: expected, found: value.typeName)
        }
        var arguments: [String] = [], bytes = 0
        for item in items {
            guard case let .string(text) = item else {
                throw .wrongType(field: "args", expected: expected, found: "an array holding a \(item.typeName)")
            }
            guard !text.utf8.contains(0) else {
                throw .invalidName(
                    field: "args", value: text, why: "contains a NUL character, which no program can receive")
            }
            bytes += text.utf8.count + 1
            arguments.append(text)
        }
        guard arguments.count <= OperationFields.argumentLimits.count, bytes <= OperationFields.argumentLimits.bytes
        else {
            throw .invalidName(
                field: "args", value: "…",
                why:
                    "holds more than \(OperationFields.argumentLimits.count) arguments or "
                        + "\(OperationFields.argumentLimits.bytes) bytes"
            )
        }
        return arguments
    }
}
