import Glibc
import SpoolSystem

/// What names a worker process in its claims: host, pid and the kernel's start time for that pid,
/// so that a reused pid is not mistaken for the original owner.
public struct ProcessIdentity: Equatable, Sendable {
    /// The host name, with characters that could break a file name replaced by `_`.
    public let host: String
    /// The process id.
    public let pid: Int32
    /// Start time in clock ticks since boot, from `/proc/PID/stat`.
    public let startTicks: UInt64

    /// Builds an identity from its parts.
    public init(host: String, pid: Int32, startTicks: UInt64) {
        self.host = host
        self.pid = pid
        self.startTicks = startTicks
    }

    /// This process.
    public static let current = ProcessIdentity(
        host: hostName(), pid: getpid(), startTicks: startTicks(of: getpid()) ?? 0)

    /// The host name made safe for file names.
    public static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        gethostname(&buffer, buffer.count - 1)
        let raw = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        let safe = String(
            raw.unicodeScalars.map { s -> Character in
                s.isASCII && (s.properties.isAlphabetic || ("0"..."9").contains(s) || s == "-" || s == ".")
                    ? Character(s) : "_"
            })
        // Cut to 32 characters so that a claimed file name always fits in 255 bytes.
        return safe.isEmpty ? "localhost" : String(safe.prefix(32))
    }

    /// The start time of `pid` in clock ticks since boot, or nil when no such process exists.
    public static func startTicks(of pid: Int32) -> UInt64? {
        guard let fd = try? FileDescriptor.currentDirectory.open(FileName("/proc/\(pid)/stat"), O_RDONLY) else {
            return nil
        }
        defer { fd.close() }
        guard let (bytes, _) = try? fd.readAll(limit: 4096) else { return nil }
        // The command name in field 2 may hold spaces and parentheses; fields after the last ')' are plain.
        guard let close = bytes.lastIndex(of: UInt8(ascii: ")")) else { return nil }
        let fields = bytes[(close + 1)...].split(separator: UInt8(ascii: " "))
        // Field 22 (starttime) is the 20th after the command name.
        guard fields.count > 19 else { return nil }
        return UInt64(String(decoding: fields[19], as: UTF8.self))
    }

    /// Whether this identity's process is still running: same host, pid present, same start time.
    /// On another host it cannot be known, and callers fall back to a lease.
    public var isAlive: Bool? {
        guard host == ProcessIdentity.current.host else { return nil }
        return ProcessIdentity.startTicks(of: pid) == startTicks
    }
}

/// Who holds an operation in `cur/` and since when: the text after `@` in `ID:STATE@HOST,PID,START,SINCE`.
public struct Claim: Equatable, Sendable {
    /// The claiming process.
    public let owner: ProcessIdentity
    /// Epoch seconds when the claim was made.
    public let since: Int64

    /// A claim by `owner` made at `since`.
    public init(owner: ProcessIdentity, since: Int64) {
        self.owner = owner
        self.since = since
    }

    /// Reads the text after `@`; nil when it is not a claim.
    public init?(text: Substring) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 4, !parts[0].isEmpty, let pid = Int32(parts[1]), let start = UInt64(parts[2]),
            let since = Int64(parts[3])
        else {
            return nil
        }
        owner = ProcessIdentity(host: String(parts[0]), pid: pid, startTicks: start)
        self.since = since
    }

    /// The text written after `@`.
    public var text: String { "\(owner.host),\(owner.pid),\(owner.startTicks),\(since)" }
}

extension Claim {
    /// The last suffix made: a worker claims many operations in the same second.
    package static let lastSuffix = Locked<(Claim, [UInt8])?>(nil)

    /// `@HOST,PID,START,SINCE` as bytes, appended to a waiting name to claim it.
    package var suffix: [UInt8] {
        Claim.lastSuffix.withLock { last in
            if let (previous, bytes) = last, previous == self { return bytes }
            let bytes = [UInt8(ascii: "@")] + Array(text.utf8)
            last = (self, bytes)
            return bytes
        }
    }
}
