/// Rules for operation ids: the stable part of a queue file's name, before any `:` retry state.
public enum OperationID {
    /// Longest id accepted, leaving room in a 255-byte file name for retry state and claim.
    public static let maxLength = 160

    /// Whether `id` may name an operation: 1 to 160 printable ASCII characters, none of `/ : @ \`,
    /// no leading dot (hidden files are ignored), not ending in `.why` (the reason sidecar).
    public static func isValid(_ id: String) -> Bool {
        let bytes = Array(id.utf8)
        guard !bytes.isEmpty, bytes.count <= maxLength, bytes[0] != UInt8(ascii: "."), !id.hasSuffix(".why") else { return false }
        return bytes.allSatisfy { $0 > 0x20 && $0 < 0x7F && !"/:@\\".utf8.contains($0) }
    }

    /// The reason `name` cannot be an id, for the `failed/` reason.
    public static func whyInvalid(_ name: FileName) -> String {
        guard let text = name.string else { return "the file name is not valid UTF-8" }
        if text.utf8.count > maxLength { return "the file name is longer than \(maxLength) bytes" }
        if text.hasSuffix(".why") { return "the file name ends in .why, which is reserved for reasons" }
        if text.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) { return "the file name contains spaces or control characters" }
        if text.utf8.contains(where: { $0 >= 0x80 }) { return "the file name contains non-ASCII characters" }
        return "the file name contains one of / : @ \\"
    }

    /// A valid id derived from any name, for filing a badly named entry in `failed/`.
    public static func sanitized(_ name: FileName) -> String {
        var bytes = name.bytes.prefix(maxLength - 12).map { b -> UInt8 in
            b > 0x20 && b < 0x7F && !"/:@\\".utf8.contains(b) ? b : UInt8(ascii: "_")
        }
        if bytes.first == UInt8(ascii: ".") || bytes.isEmpty { bytes.insert(UInt8(ascii: "_"), at: 0) }
        var id = String(decoding: bytes, as: UTF8.self)
        if id.hasSuffix(".why") { id += "_" }
        return id
    }
}

/// Retry state kept in a queue file's name after the id: `ID:o=ORDER,k=KEYHASH[,a=ATTEMPTS][,t=DUE][,e=ERROR]`.
///
/// Keeping it in the name lets a worker order and skip waiting operations from a directory listing alone,
/// without opening them, and lets an operator read it with `ls`.
public struct RetryState: Equatable, Sendable {
    /// Enqueue order: microseconds since the epoch when enqueued (a foreign file's modification time).
    public var order: Int64
    /// Hash of the ordering key (`OrderingKey.hash`).
    public var keyHash: UInt64
    /// Attempts made so far.
    public var attempts: Int = 0
    /// Epoch seconds before which the operation is not sent; 0 when due now.
    public var due: Int64 = 0
    /// A short token for the last error (`503`, `refused`, `timeout`), if any.
    public var lastError: String? = nil

    /// A state for an operation that was never tried.
    public init(order: Int64, keyHash: UInt64, attempts: Int = 0, due: Int64 = 0, lastError: String? = nil) {
        self.order = order
        self.keyHash = keyHash
        self.attempts = attempts
        self.due = due
        self.lastError = lastError
    }

    /// Reads the text after the `:`; nil when it is not a retry state.
    public init?(text: Substring) {
        var order: Int64?, keyHash: UInt64?
        for field in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard field.count >= 3, field.dropFirst().first == "=" else { return nil }
            let value = field.dropFirst(2)
            switch field.first {
            case "o": order = Int64(value)
            case "k":
                guard value.count == 16 else { return nil }
                keyHash = UInt64(value, radix: 16)
            case "a":
                guard let n = Int(value), n >= 0 else { return nil }
                attempts = n
            case "t":
                guard let n = Int64(value), n >= 0 else { return nil }
                due = n
            case "e":
                guard RetryState.isErrorToken(value) else { return nil }
                lastError = String(value)
            default: return nil
            }
        }
        guard let order, let keyHash, order >= 0 else { return nil }
        self.order = order
        self.keyHash = keyHash
    }

    /// The text written after the `:`.
    public var text: String {
        var out = "o=\(order),k=\(OrderingKey.hex(keyHash))"
        if attempts > 0 { out += ",a=\(attempts)" }
        if due > 0 { out += ",t=\(due)" }
        if let lastError { out += ",e=\(lastError)" }
        return out
    }

    /// Whether `token` can be stored as `e=`: 1 to 32 of `a-z 0-9 -`.
    public static func isErrorToken(_ token: some StringProtocol) -> Bool {
        !token.isEmpty && token.utf8.count <= 32 && token.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D }
    }
}

/// The hash of an ordering key that queue file names carry.
public enum OrderingKey {
    /// 64-bit FNV-1a of the key's UTF-8 bytes. A collision only makes two keys share one order, never reorders one.
    public static func hash(_ key: String) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 {
            h ^= UInt64(byte)
            h = h &* 0x0000_0100_0000_01B3
        }
        return h
    }

    /// 16 lower-case hex digits.
    public static func hex(_ hash: UInt64) -> String {
        String(hash, radix: 16).leftPadded(to: 16)
    }
}
