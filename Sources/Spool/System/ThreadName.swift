import CSpool

/// The calling thread's name, as `top -H`, `ps -L` and /proc/PID/task/TID/comm show it.
public enum ThreadName {
    /// The calling thread's name.
    public static var current: String {
        var buffer = [CChar](repeating: 0, count: 17)
        guard cspool_get_thread_name(&buffer) == 0 else { return "" }
        return String(cString: buffer)
    }

    /// Names the calling thread; Linux keeps the first 15 bytes.
    public static func set(_ name: String) {
        _ = cspool_set_thread_name(name)
    }
}
