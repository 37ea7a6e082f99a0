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

/// The processors this process may run on.
public enum Processors {
    /// How many, as `nproc` counts them: those of its affinity mask (taskset, a cgroup's cpuset), at least 1.
    public static var available: Int { max(1, Int(cspool_available_processors())) }
}
