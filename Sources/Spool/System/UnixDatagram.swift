import Glibc

/// One datagram to a Unix socket, as systemd's notification socket and the journal take their messages.
package enum UnixDatagram {
    /// Sends `bytes` to the socket at `address` (a path, or an abstract name starting with a NUL byte) without
    /// waiting; whether it was taken. A full socket or a missing one refuses, and the caller decides what a
    /// lost message costs.
    @discardableResult
    package static func send(_ bytes: [UInt8], to address: [UInt8]) -> Bool {
        guard !address.isEmpty, address.count < MemoryLayout.size(ofValue: sockaddr_un().sun_path) else { return false }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var socketAddress = sockaddr_un()
        socketAddress.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &socketAddress.sun_path) { path in
            for (index, byte) in address.enumerated() { path[index] = byte }
        }
        // An abstract name's length counts exactly its bytes; a path's its NUL too.
        let length = MemoryLayout<sa_family_t>.size + address.count + (address[0] == 0 ? 0 : 1)
        let sent = withUnsafePointer(to: &socketAddress) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bytes.withUnsafeBytes {
                    sendto(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT), socketAddress,
                           socklen_t(length))
                }
            }
        }
        return sent == bytes.count
    }
}
