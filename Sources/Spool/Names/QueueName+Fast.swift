
extension QueueName {
    /// The few facts a planner needs from a queue file name, read straight from its bytes without allocating:
    /// the same grammar as `QueueName(_:)`, for the passes that touch every file of a large queue.
    package struct Facts: Equatable, Sendable {
        /// The ordering key's hash.
        package var keyHash: UInt64
        /// The enqueue order stamp.
        package var orderMicroseconds: Int64
        /// Epoch seconds before which it is not sent; 0 when due now.
        package var dueSeconds: Int64
        /// Whether the name carries a claim (`@…`).
        package var claimed: Bool
        /// The priority (`p=`), 0 when absent.
        package var priority: Int
        /// The origin's hash (`h=`), 0 when absent.
        package var originHash: UInt32
        /// On hold (`s=held`).
        package var held: Bool

        /// Reads `ID:o=…,k=…[,h=…][,p=…][,a=…][,t=…][,e=…][,s=held][,u=…][@…]`; nil for any other name (a plain
        /// name, or one that only the full parser can judge), which callers then hand to `QueueName`.
        package init?(_ name: UnsafeBufferPointer<UInt8>) {
            guard let colon = name.lastIndex(of: UInt8(ascii: ":")), colon > 0, colon <= OperationID.maxLength else {
                return nil
            }
            guard OperationID.isValid(bytes: name[0..<colon]) else { return nil }
            var i = colon + 1
            var orderMicroseconds: Int64 = -1, keyHash: UInt64?, dueSeconds: Int64 = 0
            var claimed = false, held = false, priority = 0, originHash: UInt32 = 0
            while i < name.count {
                guard i + 2 < name.count, name[i + 1] == UInt8(ascii: "=") else { return nil }
                let field = name[i]
                i += 2
                let start = i
                while i < name.count, name[i] != UInt8(ascii: ","), name[i] != UInt8(ascii: "@") { i += 1 }
                guard i > start else { return nil }
                switch field {
                case UInt8(ascii: "o"):
                    guard let n = RetryState.decimal(name[start..<i]) else { return nil }
                    orderMicroseconds = n
                case UInt8(ascii: "k"):
                    guard i - start == 16, let n = RetryState.hex(name[start..<i]) else { return nil }
                    keyHash = n
                case UInt8(ascii: "h"):
                    guard i - start == 8, let n = RetryState.hex(name[start..<i]), n != 0 else { return nil }
                    originHash = UInt32(n)
                case UInt8(ascii: "p"):
                    guard let n = RetryState.priority(name[start..<i]) else { return nil }
                    priority = n
                case UInt8(ascii: "a"):
                    guard RetryState.decimal(name[start..<i]) != nil else { return nil }
                case UInt8(ascii: "t"):
                    guard let n = RetryState.decimal(name[start..<i]) else { return nil }
                    dueSeconds = n
                case UInt8(ascii: "s"):
                    guard name[start..<i].elementsEqual("held".utf8) else { return nil }
                    held = true
                case UInt8(ascii: "e"):
                    for j in start..<i
                    where !(name[j] >= 0x61 && name[j] <= 0x7A || name[j] >= 0x30 && name[j] <= 0x39 || name[j] == 0x2D)
                    { return nil }
                    guard i - start <= 32 else { return nil }
                case UInt8(ascii: "u"):
                    guard RetryState.userID(name[start..<i]) != nil else { return nil }
                default: return nil
                }
                if i < name.count, name[i] == UInt8(ascii: "@") {
                    // A claim follows, judged exactly as the full parser judges it: two readers of one name must
                    // never disagree (the fuzzer found names with a bad claim that only this one took). Only a
                    // claimed name, in cur/, pays for the String.
                    guard let text = String(validating: name[(i + 1)...], as: UTF8.self),
                          Claim(text: Substring(text)) != nil
                    else { return nil }
                    claimed = true
                    break
                }
                i += 1
                // A comma must be followed by another field, as the full parser requires.
                if i == name.count { return nil }
            }
            guard orderMicroseconds >= 0, let keyHash else { return nil }
            self.keyHash = keyHash
            self.orderMicroseconds = orderMicroseconds
            self.dueSeconds = dueSeconds
            self.claimed = claimed
            self.priority = priority
            self.originHash = originHash
            self.held = held
        }
    }

    /// The `o=` stamp that a waiting or claimed name's state starts with, the rest unjudged: enough to sort a
    /// listing, whose rows then read the name in full. Nil when the state does not start with `o=DIGITS`.
    package static func orderStamp(_ name: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard let colon = name.lastIndex(of: UInt8(ascii: ":")), colon + 3 < name.count,
              name[colon + 1] == UInt8(ascii: "o"), name[colon + 2] == UInt8(ascii: "=") else { return nil }
        let digits = name[(colon + 3)...].prefix { $0 >= 0x30 && $0 <= 0x39 }
        return RetryState.decimal(digits)
    }
}
