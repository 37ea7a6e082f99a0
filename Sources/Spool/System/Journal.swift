import Glibc

/// The systemd journal, written through its native protocol (systemd's "Native Journal Protocol"): one
/// datagram per message, of `NAME=value` fields, to the journal's socket, so that `journalctl` can select
/// spool's messages by operation, origin and outcome (`journalctl -u spool-send SPOOL_OUTCOME=conflict`)
/// and explain them from the message catalog (`journalctl -x`). Written by hand: spool links no libsystemd.
package struct Journal: Sendable {
    /// The socket's address.
    let address: [UInt8]

    /// Where journald listens.
    package static let socketPath = "/run/systemd/journal/socket"

    /// The journal, when this process's standard error is its stream: systemd then names the stream's device
    /// and inode in `$JOURNAL_STREAM`, and a match with standard error's own is the check `sd_journal_stream_fd`
    /// documents (a program whose standard error was sent elsewhere writes lines there, as before).
    package static let forStandardError: Journal? = {
        guard let stream = Environment.value("JOURNAL_STREAM") else { return nil }
        var status = stat()
        guard fstat(STDERR_FILENO, &status) == 0 else { return nil }
        guard stream == "\(status.st_dev):\(status.st_ino)" else { return nil }
        // The tests' journal: a socket of their own, never in secure mode.
        let path = Environment.testHook("SPOOL_TEST_JOURNAL_SOCKET") ?? socketPath
        return Journal(address: Array(path.utf8))
    }()

    /// Sends one message of `fields`; false when the journal did not take it (the caller writes a line).
    package func send(_ fields: [(name: String, value: String)]) -> Bool {
        UnixDatagram.send(Journal.encode(fields), to: address)
    }

    /// The datagram of `fields`: `NAME=value` lines, and a value holding a newline as the protocol's binary
    /// form (`NAME`, a newline, its length as a 64-bit little-endian number, the bytes, a newline).
    package static func encode(_ fields: [(name: String, value: String)]) -> [UInt8] {
        var bytes: [UInt8] = []
        for (name, value) in fields {
            bytes += Array(name.utf8)
            let valueBytes = Array(value.utf8)
            if valueBytes.contains(UInt8(ascii: "\n")) {
                bytes.append(UInt8(ascii: "\n"))
                withUnsafeBytes(of: UInt64(valueBytes.count).littleEndian) { bytes += $0 }
            } else {
                bytes.append(UInt8(ascii: "="))
            }
            bytes += valueBytes
            bytes.append(UInt8(ascii: "\n"))
        }
        return bytes
    }
}
