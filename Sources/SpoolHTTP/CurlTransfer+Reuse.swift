import CCurl
import Glibc
import SpoolSystem
import SpoolTransport

/// A kept HTTP/1 connection holding bytes before a request is sent holds what a broken server sent beyond
/// its last answer (a body after a 204, say). libcurl 7.88 counts such a connection alive and would read
/// those bytes as the next answer. Checked just before each request goes out (CURLOPT_PREREQFUNCTION):
/// the connection is shut down, so libcurl drops it, and the request, not sent yet, goes again on a
/// fresh one. Only on plain http: on TLS the socket holds records libcurl has not read yet (session
/// tickets, say), and on HTTP/2 other streams' frames; there a misread answer is `lost` (CurlResultTable).
extension CurlTransfer {
    /// The sockets libcurl opened, and their local port and peer once known. A closed number may linger
    /// here; libcurl's next socket of that number, on any engine and for https too, resets it (`onSocket`),
    /// and a known one is only ever used after getsockname confirms its port.
    static let sockets = Locked<[Int32: Known?]>([:])

    /// What a socket was found connected from and to.
    struct Known: Equatable {
        let port: UInt16
        let peer: Endpoint
    }

    /// Asks libcurl to call `beforeRequest` once the connection is up: to tell the worker so, and on plain
    /// http to check a reused connection.
    func watchBeforeRequest(_ context: UnsafeMutableRawPointer, checkReuse: Bool) {
        checksReuse = checkReuse
        // Every socket, https too: a number that an https connection took over must not keep the plain one's
        // port and peer, or a check on another engine's thread could shut the wrong connection down.
        ccurl_setopt_socket_callback(easy, Int32(CCURLOPT_SOCKOPTFUNCTION), CurlTransfer.onSocket)
        ccurl_setopt_prerequest_callback(easy, Int32(CCURLOPT_PREREQFUNCTION), CurlTransfer.beforeRequest)
        pointer(CCURLOPT_PREREQDATA, context)
    }

    static let onSocket: ccurl_socket_callback = { _, socket, _ in
        _ = CurlTransfer.sockets.withLock { $0.updateValue(nil, forKey: socket) }
        return 0
    }

    static let beforeRequest: ccurl_prerequest_callback = { context, remoteIP, _, remotePort, localPort in
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(context!).takeUnretainedValue()
        transfer.onConnected?()
        guard transfer.checksReuse else { return 0 }
        let peer = Endpoint(
            address: remoteIP.map { String(cString: $0) } ?? "", port: UInt16(truncatingIfNeeded: remotePort))
        guard let socket = CurlTransfer.socket(boundTo: UInt16(truncatingIfNeeded: localPort), peer: peer) else {
            return 0
        }
        var byte: UInt8 = 0
        guard recv(socket, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) > 0 else { return 0 }
        shutdown(socket, Int32(SHUT_RDWR))
        transfer.staleConnection = true
        return 1
    }

    /// An address and port, as libcurl names them to the callback.
    struct Endpoint: Equatable {
        let address: String
        let port: UInt16
    }

    /// The socket of ours connected from local `port` to `peer`: Linux lets connections to different
    /// peers share a local port, so both ends must match. A socket looked at before costs one getsockname
    /// (the per-request path on a kept connection); the others are looked at once.
    static func socket(boundTo port: UInt16, peer: Endpoint) -> Int32? {
        sockets.withLock { sockets in
            let wanted = Known(port: port, peer: peer)
            if let known = sockets.first(where: { $0.value == wanted })?.key {
                if localPort(known) == port { return known }
                sockets[known] = .some(nil)
            }
            for (socket, known) in sockets where known == nil {
                guard let bound = endpoint(socket, local: true)?.port, let remote = endpoint(socket, local: false)
                else { continue }
                sockets[socket] = Known(port: bound, peer: remote)
                if bound == port, remote == peer { return socket }
            }
            return nil
        }
    }

    /// The local port of a socket, nil when it is not an IP socket: the per-request check of a known socket,
    /// which needs no address text.
    private static func localPort(_ socket: Int32) -> UInt16? {
        address(socket, local: true).flatMap { port(of: $0) }
    }

    /// This side (getsockname) or the peer's (getpeername) of a socket, nil when it is not a connected
    /// IP socket.
    private static func endpoint(_ socket: Int32, local: Bool) -> Endpoint? {
        guard var address = address(socket, local: local), let port = port(of: address) else { return nil }
        let family = Int32(address.ss_family)
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        withUnsafePointer(to: &address) { pointer in
            if family == AF_INET {
                pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { a in
                    var raw = a.pointee.sin_addr
                    inet_ntop(AF_INET, &raw, &text, socklen_t(text.count))
                }
            } else {
                pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { a in
                    var raw = a.pointee.sin6_addr
                    inet_ntop(AF_INET6, &raw, &text, socklen_t(text.count))
                }
            }
        }
        let bytes = text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return Endpoint(address: String(decoding: bytes, as: UTF8.self), port: port)
    }

    /// The address of one side of a socket, nil when the call fails.
    private static func address(_ socket: Int32, local: Bool) -> sockaddr_storage? {
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                local ? getsockname(socket, $0, &length) == 0 : getpeername(socket, $0, &length) == 0
            }
        }
        return ok ? address : nil
    }

    /// The port of an IPv4 or IPv6 address, nil for any other family.
    private static func port(of address: sockaddr_storage) -> UInt16? {
        var address = address
        let family = Int32(address.ss_family)
        return withUnsafePointer(to: &address) { pointer -> UInt16? in
            switch family {
            case AF_INET:
                pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
            case AF_INET6:
                pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    UInt16(bigEndian: $0.pointee.sin6_port)
                }
            default: nil
            }
        }
    }
}
