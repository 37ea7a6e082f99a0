import SpoolSystem

/// Rules for operation ids: the stable part of a queue file's name, before any `:` retry state.
package enum OperationID {
    /// Longest id accepted: a 255-byte file name must hold the id, the retry state (up to about 95 bytes)
    /// and the claim (up to about 65 bytes with a host name cut to 32).
    package static let maxLength = 96

    /// Whether `id` may name an operation: 1 to 96 printable ASCII characters, none of `/ : @ \`,
    /// no leading dot (hidden files are ignored), not ending in `.why` (the reason sidecar).
    package static func isValid(_ id: String) -> Bool {
        isValid(bytes: Array(id.utf8)[...])
    }

    /// The same rule on raw bytes: the one place it is written.
    @inline(__always)
    package static func isValid<Bytes: BidirectionalCollection>(bytes: Bytes) -> Bool where Bytes.Element == UInt8 {
        guard let first = bytes.first, bytes.count <= maxLength, first != UInt8(ascii: ".") else { return false }
        if bytes.count >= 4, bytes.suffix(4).elementsEqual(".why".utf8) { return false }
        return bytes.allSatisfy(isIDByte)
    }

    /// Whether `byte` may appear in an id: printable ASCII other than `/ : @ \`.
    @inline(__always)
    package static func isIDByte(_ byte: UInt8) -> Bool {
        byte > 0x20 && byte < 0x7F && byte != UInt8(ascii: "/") && byte != UInt8(ascii: ":")
            && byte != UInt8(ascii: "@") && byte != UInt8(ascii: "\\")
    }

    /// The reason `name` cannot be an id, for the `failed/` reason.
    package static func whyInvalid(_ name: FileName) -> String {
        guard let text = name.string else { return "the file name is not valid UTF-8" }
        if text.utf8.count > maxLength { return "the file name is longer than \(maxLength) bytes" }
        if text.hasSuffix(".why") { return "the file name ends in .why, which is reserved for reasons" }
        if text.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) {
            return "the file name contains spaces or control characters"
        }
        if text.utf8.contains(where: { $0 >= 0x80 }) { return "the file name contains non-ASCII characters" }
        return "the file name contains one of / : @ \\"
    }

    /// A valid id derived from any name, for filing a badly named entry in `failed/`.
    package static func sanitized(_ name: FileName) -> String {
        var bytes = name.bytes.prefix(maxLength - 12).map { isIDByte($0) ? $0 : UInt8(ascii: "_") }
        if bytes.first == UInt8(ascii: ".") || bytes.isEmpty { bytes.insert(UInt8(ascii: "_"), at: 0) }
        var id = String(decoding: bytes, as: UTF8.self)
        if id.hasSuffix(".why") { id += "_" }
        return id
    }
}

/// Retry state kept in a queue file's name after the id:
/// `ID:o=ORDER,k=KEYHASH[,h=ORIGINHASH][,p=PRIORITY][,a=ATTEMPTS][,t=DUE][,e=ERROR][,s=held][,u=UID]`.
///
/// Keeping it in the name lets a worker order and skip waiting operations from a directory listing alone,
/// without opening them, and lets an operator read it with `ls`.
package struct RetryState: Equatable, Sendable {
    /// Enqueue order: microseconds since the epoch when enqueued (a foreign file's modification time).
    package var orderMicroseconds: Int64
    /// Hash of the ordering key (`OrderingKey.hash`).
    package var keyHash: UInt64
    /// Attempts made so far.
    package var attempts: Int = 0
    /// Epoch seconds before which the operation is not sent; 0 when due now.
    package var dueSeconds: Int64 = 0
    /// A short token for the last error (`503`, `refused`, `timeout`), if any.
    package var lastError: String? = nil
    /// The document's `priority` (-10 to 10), so that the planner orders lanes from names alone.
    package var priority = 0
    /// `OrderingKey.originHash` of the operation's origin, so that `spool-ctl shape` groups by origin from
    /// names alone; 0 when the name does not say (written before names carried it).
    package var originHash: UInt32 = 0
    /// Put on hold by `spool-ctl hold`: no run sends it, nor anything after it in its key, until released.
    package var held = false
    /// The producer whose write this is, when the spool's owner rewrote it (`resolve`, `retry --if-match`)
    /// and so owns its file: believed of a file of the owner or root only (`SpoolUsers.producer(owner:name:)`).
    package var producer: UInt32? = nil

    /// The last error of a claim given back by recovery or from a worker's stranded claims: it may have been
    /// sent (the server may have it), though no attempt was counted.
    package static let interruptedToken = "interrupted"

    /// The last error of a filed operation put back by `spool-ctl retry` or `resolve`: it may have been sent
    /// before it was filed (a 409 was an answer; a timeout may have been applied), though its attempts start
    /// again from none.
    package static let retriedToken = "retried"

    /// Whether this operation may have reached the server though it counts no attempt (`interruptedToken`,
    /// `retriedToken`): no later write is merged into it, and a DELETE does not cancel it.
    package var mayHaveBeenSent: Bool {
        attempts > 0 || lastError == Self.interruptedToken || lastError == Self.retriedToken
    }

    /// This state, for a claim returned to `new/` by another way than its attempt's end: it says that the
    /// operation may have been sent (`interruptedToken`) when no earlier attempt says so already. Its
    /// attempts stay, so a handler's job cut short by a crash runs again with the same `SPOOL_ATTEMPT`.
    package var interrupted: RetryState {
        var state = self
        if state.attempts == 0, state.lastError == nil { state.lastError = Self.interruptedToken }
        return state
    }

    /// A state for an operation that was never tried.
    package init(
        orderMicroseconds: Int64, keyHash: UInt64, priority: Int = 0, attempts: Int = 0, dueSeconds: Int64 = 0,
        lastError: String? = nil
    ) {
        self.orderMicroseconds = orderMicroseconds
        self.keyHash = keyHash
        self.priority = priority
        self.attempts = attempts
        self.dueSeconds = dueSeconds
        self.lastError = lastError
    }

    /// Reads the bytes after the `:`: comma-separated `o=`, `k=`, `h=`, `p=`, `a=`, `t=`, `e=`, `s=`, `u=` fields,
    /// `o` and `k` required.
    package init?(bytes: ArraySlice<UInt8>) {
        var orderMicroseconds: Int64?, keyHash: UInt64?
        var i = bytes.startIndex
        while true {
            let start = i
            while i < bytes.endIndex, bytes[i] != UInt8(ascii: ",") { i += 1 }
            let field = bytes[start..<i]
            guard field.count >= 3, field[start + 1] == UInt8(ascii: "=") else { return nil }
            let value = field[(start + 2)...]
            switch field[start] {
            case UInt8(ascii: "o"):
                guard let n = RetryState.decimal(value) else { return nil }
                orderMicroseconds = n
            case UInt8(ascii: "k"):
                guard value.count == 16, let n = RetryState.hex(value) else { return nil }
                keyHash = n
            case UInt8(ascii: "h"):
                guard value.count == 8, let n = RetryState.hex(value), n != 0 else { return nil }
                originHash = UInt32(n)
            case UInt8(ascii: "p"):
                guard let n = RetryState.priority(value) else { return nil }
                priority = n
            case UInt8(ascii: "a"):
                guard let n = RetryState.decimal(value) else { return nil }
                attempts = Int(n)
            case UInt8(ascii: "t"):
                guard let n = RetryState.decimal(value) else { return nil }
                dueSeconds = n
            case UInt8(ascii: "s"):
                guard value.elementsEqual("held".utf8) else { return nil }
                held = true
            case UInt8(ascii: "e"):
                guard RetryState.isErrorToken(String(decoding: value, as: UTF8.self)) else { return nil }
                lastError = String(decoding: value, as: UTF8.self)
            case UInt8(ascii: "u"):
                guard let n = RetryState.userID(value) else { return nil }
                producer = n
            default: return nil
            }
            if i == bytes.endIndex { break }
            i += 1
        }
        guard let orderMicroseconds, let keyHash else { return nil }
        self.orderMicroseconds = orderMicroseconds
        self.keyHash = keyHash
    }

    /// A non-negative decimal of at most 18 digits, no sign: the grammar of every number in a name.
    package static func decimal(_ digits: some Collection<UInt8>) -> Int64? {
        guard !digits.isEmpty, digits.count <= 18 else { return nil }
        var n: Int64 = 0
        for d in digits {
            let v = d &- 0x30
            guard v < 10 else { return nil }
            n = n * 10 + Int64(v)
        }
        return n
    }

    /// A user id: a decimal of at most 10 digits, no leading zero, below 2^32 - 1 (which means none).
    package static func userID(_ digits: some Collection<UInt8>) -> UInt32? {
        guard digits.count <= 10, digits.first != UInt8(ascii: "0") || digits.count == 1, let n = decimal(digits),
              n < Int64(UInt32.max)
        else { return nil }
        return UInt32(n)
    }

    /// A priority: an optional `-` and one or two digits, from -10 to 10, never 0 (which is not written).
    package static func priority(_ digits: some Collection<UInt8>) -> Int? {
        let negative = digits.first == UInt8(ascii: "-")
        let magnitude = negative ? digits.dropFirst() : digits[...]
        guard magnitude.count <= 2, let n = decimal(magnitude), n != 0, n <= 10, magnitude.first != UInt8(ascii: "0")
        else { return nil }
        return negative ? -Int(n) : Int(n)
    }

    /// Hex digits, no sign, at most 16 of them.
    package static func hex(_ digits: some Collection<UInt8>) -> UInt64? {
        guard !digits.isEmpty, digits.count <= 16 else { return nil }
        var n: UInt64 = 0
        for b in digits {
            let d: UInt8
            switch b {
            case 0x30...0x39: d = b - 0x30
            case 0x61...0x66: d = b - 0x61 + 10
            case 0x41...0x46: d = b - 0x41 + 10
            default: return nil
            }
            n = n << 4 | UInt64(d)
        }
        return n
    }

    /// The text written after the `:`.
    package var text: String {
        var out = "o=\(orderMicroseconds),k=\(OrderingKey.hex(keyHash))"
        if originHash != 0 { out += ",h=" + String(originHash, radix: 16).leftPadded(to: 8) }
        if priority != 0 { out += ",p=\(priority)" }
        if attempts > 0 { out += ",a=\(attempts)" }
        if dueSeconds > 0 { out += ",t=\(dueSeconds)" }
        if let lastError { out += ",e=\(lastError)" }
        if held { out += ",s=held" }
        if let producer { out += ",u=\(producer)" }
        return out
    }

    /// Whether `token` can be stored as `e=`: 1 to 32 of `a-z 0-9 -`.
    package static func isErrorToken(_ token: some StringProtocol) -> Bool {
        !token.isEmpty && token.utf8.count <= 32
            && token.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D }
    }
}

/// The hash of an ordering key that queue file names carry.
package enum OrderingKey {
    /// 64-bit FNV-1a of the key's UTF-8 bytes. A collision only makes two keys share one order, never reorders one.
    package static func hash(_ key: String) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 {
            h ^= UInt64(byte)
            h = h &* 0x0000_0100_0000_01B3
        }
        return h
    }

    /// A 32-bit hash of an origin for `h=`, never 0 (which means absent): the 64-bit hash's halves folded.
    package static func originHash(_ origin: String) -> UInt32 {
        let h = hash(origin)
        return max(1, UInt32(truncatingIfNeeded: h ^ (h >> 32)))
    }

    /// 16 lower-case hex digits.
    package static func hex(_ hash: UInt64) -> String {
        String(hash, radix: 16).leftPadded(to: 16)
    }
}
