import Foundation
import Glibc

/// A network namespace the test makes with `ip netns add`: only `lo`, down, until the test brings it up.
/// Removed at the end. Only loopback inside it ever carries traffic.
final class NetworkNamespace {
    let name: String

    /// Why namespaces cannot be made here, or nil.
    static let unavailable: String? = {
        guard getuid() == 0 else { return "needs root to make a network namespace" }
        guard
            FileManager.default.isExecutableFile(atPath: "/usr/sbin/ip")
                || FileManager.default.isExecutableFile(atPath: "/usr/bin/ip")
        else {
            return "needs ip (Debian's iproute2)"
        }
        let probe = "spool-probe-\(getpid())"
        guard system("ip netns add \(probe) >/dev/null 2>&1") == 0 else { return "`ip netns add` is refused here" }
        _ = system("ip netns del \(probe) >/dev/null 2>&1")
        return nil
    }()

    /// A new namespace, or nil with the reason printed.
    static func make(_ label: String) -> NetworkNamespace? {
        if let reason = unavailable {
            print("skipping a network-namespace test: \(reason)")
            return nil
        }
        let namespace = NetworkNamespace(name: "spool-\(label)-\(getpid())")
        guard system("ip netns add \(namespace.name)") == 0 else {
            print("skipping a network-namespace test: `ip netns add \(namespace.name)` failed")
            return nil
        }
        return namespace
    }

    private init(name: String) { self.name = name }

    deinit { _ = system("ip netns del \(name) >/dev/null 2>&1") }

    /// Runs `command` inside the namespace; returns its status.
    @discardableResult
    func run(_ command: String) -> Int32 { system("ip netns exec \(name) \(command)") }

    /// The arguments that start `program` inside the namespace.
    func arguments(_ program: String, _ arguments: [String]) -> [String] {
        ["netns", "exec", name, program] + arguments
    }
}
