import SpoolNames
import SpoolSystem

/// Idempotency keys (draft-ietf-httpapi-idempotency-key-header): the same key on every attempt of one write.
package enum IdempotencyKey {
    /// A new random key in UUID form, from the system's random source.
    package static func random() -> String {
        var g = SystemRandomNumberGenerator()
        let a = g.next() as UInt64, b = g.next() as UInt64
        let hex = String(a, radix: 16).leftPadded(to: 16) + String(b, radix: 16).leftPadded(to: 16)
        let c = Array(hex)
        return
            "\(String(c[0..<8]))-\(String(c[8..<12]))-\(String(c[12..<16]))-\(String(c[16..<20]))-\(String(c[20..<32]))"
    }

    /// The key sent for an operation whose document has none: derived from what makes this one write unique,
    /// its id and enqueue order stamp (kept in the name across retries and by `spool-ctl retry`), and what it
    /// sends (method, URL, body), so that it is the same on every attempt and different for another write
    /// under the same name, in this spool or another.
    package static func derived(id: String, orderMicroseconds: Int64, method: String, url: String, body: [UInt8]?)
        -> String
    {
        let identity = OrderingKey.hash(id + "\u{0}" + String(orderMicroseconds))
        var h = OrderingKey.hash(method + "\u{0}" + url + "\u{0}") ^ identity
        for byte in body ?? [] {
            h ^= UInt64(byte)
            h = h &* 0x0000_0100_0000_01B3
        }
        return "spool-" + OrderingKey.hex(identity) + "-" + OrderingKey.hex(h)
    }
}
