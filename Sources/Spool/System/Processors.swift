import CSpool

/// The processors this process may run on: how many threads `spool-send` sends on by default.
public enum Processors {
    /// How many, as `nproc` counts them: those of its affinity mask (taskset, a cgroup's cpuset), at least 1.
    public static var available: Int { max(1, Int(cspool_available_processors())) }
}
