import CSpool

/// The calling thread's name, as `top -H`, `ps -L` and /proc/PID/task/TID/comm show it.
package enum ThreadName {
    /// The calling thread's name.
    package static var current: String {
        var buffer = [CChar](repeating: 0, count: 17)
        guard cspool_get_thread_name(&buffer) == 0 else { return "" }
        // The name ends at its first NUL; the buffer always has one (17 bytes for at most 16 with the NUL).
        let end = buffer.firstIndex(of: 0) ?? buffer.endIndex
        return String(decoding: buffer[..<end].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Names the calling thread; Linux keeps the first 15 bytes.
    package static func set(_ name: String) {
        _ = cspool_set_thread_name(name)
    }
}
