import Glibc
import SpoolSystem

/// What names a worker process in its claims: host, pid and the kernel's start time for that pid,
/// so that a reused pid is not mistaken for the original owner.
package struct ProcessIdentity: Equatable, Sendable {
    /// The host name, with characters that could break a file name replaced by `_`.
    package let host: String
    /// The process id.
    package let pid: Int32
    /// Start time in clock ticks since boot, from `/proc/PID/stat`.
    package let startTicks: UInt64

    /// Builds an identity from its parts.
    package init(host: String, pid: Int32, startTicks: UInt64) {
        self.host = host
        self.pid = pid
        self.startTicks = startTicks
    }

    /// This process.
    package static let current = ProcessIdentity(
        host: hostName(), pid: getpid(), startTicks: startTicks(of: getpid()) ?? 0)

    /// The host name made safe for file names.
    package static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        gethostname(&buffer, buffer.count - 1)
        return safeHostName(buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
    }

    /// `raw` with characters that could break a file name replaced by `_`, in at most 32 characters so that a
    /// claimed file name always fits in 255 bytes. A longer name keeps 23 and ends in a hash of the whole: two
    /// hosts of a shared spool named alike but for their ends must not take each other's pids for their own.
    static func safeHostName(_ raw: String) -> String {
        let safe = String(
            raw.unicodeScalars.map { s -> Character in
                s.isASCII && (s.properties.isAlphabetic || ("0"..."9").contains(s) || s == "-" || s == ".")
                    ? Character(s) : "_"
            })
        guard !safe.isEmpty else { return "localhost" }
        guard safe.count > 32 else { return safe }
        let hash = String(OrderingKey.originHash(safe), radix: 16)
        return safe.prefix(23) + "-" + String(repeating: "0", count: 8 - hash.count) + hash
    }

    /// What `/proc` says of a pid.
    enum Lookup: Equatable {
        /// Running, started at this many clock ticks since boot.
        case running(UInt64)
        /// No such process.
        case gone
        /// Not known: `/proc` could not be read for another reason (no descriptor left, no memory).
        case unknown
    }

    /// The start time of `pid` in clock ticks since boot, or nil when no such process exists or it cannot be
    /// known.
    package static func startTicks(of pid: Int32) -> UInt64? {
        if case let .running(ticks) = lookUp(pid) { return ticks }
        return nil
    }

    /// Whether `pid` runs, and since when, from `/proc/PID/stat`.
    static func lookUp(_ pid: Int32) -> Lookup {
        guard pid > 0 else { return .gone }
        let fd: FileDescriptor
        do throws(Errno) {
            fd = try FileDescriptor.currentDirectory.open(FileName("/proc/\(pid)/stat"), O_RDONLY)
        } catch .noSuchFileOrDirectory {
            // Or hidden: /proc mounted with hidepid shows another user's processes to no one but root.
            return kill(pid, 0) == 0 || errno == EPERM ? .unknown : .gone
        } catch {
            return .unknown
        }
        defer { fd.close() }
        let bytes: [UInt8]
        do throws(Errno) { (bytes, _) = try fd.readAll(limit: 4096) } catch .noSuchProcess { return .gone } catch {
            return .unknown
        }
        // The command name in field 2 may hold spaces and parentheses; fields after the last ')' are plain.
        guard let close = bytes.lastIndex(of: UInt8(ascii: ")")) else { return .unknown }
        let fields = bytes[(close + 1)...].split(separator: UInt8(ascii: " "))
        // Field 22 (starttime) is the 20th after the command name.
        guard fields.count > 19, let ticks = UInt64(String(decoding: fields[19], as: UTF8.self)) else {
            return .unknown
        }
        return .running(ticks)
    }

    /// Whether this identity's process is still running: same host, pid present, same start time. On another
    /// host, or when `/proc` cannot tell (not mounted: this process's own start time was not found), it
    /// cannot be known, and callers fall back to a lease: a live claim is never taken for a dead one.
    package var isAlive: Bool? {
        // A start time of 0: its maker could not read its own in /proc either.
        guard host == ProcessIdentity.current.host, ProcessIdentity.current.startTicks != 0, startTicks != 0 else {
            return nil
        }
        switch ProcessIdentity.lookUp(pid) {
        case let .running(ticks): return ticks == startTicks
        case .gone: return false
        case .unknown: return nil
        }
    }
}

/// Who holds an operation in `cur/` and since when: the text after `@` in `ID:STATE@HOST,PID,START,SINCE`.
package struct Claim: Equatable, Sendable {
    /// The claiming process.
    package let owner: ProcessIdentity
    /// Epoch seconds when the claim was made.
    package let since: Int64

    /// A claim by `owner` made at `since`.
    package init(owner: ProcessIdentity, since: Int64) {
        self.owner = owner
        self.since = since
    }

    /// Reads the text after `@`; nil when it is not a claim.
    package init?(text: Substring) {
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
    package var text: String { "\(owner.host),\(owner.pid),\(owner.startTicks),\(since)" }
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
