import Foundation
import Glibc

/// The LD_PRELOAD stand-in of `Tests/Shims/faultshim.c`, built once per test run with the system's C
/// compiler: for file-system behaviour the machine lacks (no RENAME_NOREPLACE, a disk answering EIO).
enum FaultShim {
    /// The built library, or why it could not be built.
    static let library: Result<String, ShimUnavailable> = {
        let source = Repository.root + "/Tests/Shims/faultshim.c"
        let output = NSTemporaryDirectory() + "spool-faultshim-\(getpid()).so"
        let compiler = ["cc", "gcc", "clang"].first { name in
            ["/usr/bin/", "/usr/local/bin/", "/bin/"].contains {
                FileManager.default.isExecutableFile(atPath: $0 + name)
            }
        }
        guard let compiler else {
            return .failure(ShimUnavailable(reason: "no C compiler (cc, gcc or clang) to build the LD_PRELOAD shim"))
        }
        let status = Mounts.run([compiler, "-shared", "-fPIC", "-O2", "-o", output, source, "-ldl"])
        guard status == 0 else {
            return .failure(ShimUnavailable(reason: "\(compiler) could not build \(source) (status \(status))"))
        }
        return .success(output)
    }()

    /// Whether the shim is there, for `.enabled(if:)`; prints the reason when it is not.
    static var available: Bool {
        if case let .failure(why) = library { print("skipping a fault test: \(why.reason)") }
        return (try? library.get()) != nil
    }

    /// The environment that loads the shim with the given settings.
    static func environment(_ settings: [String: String]) -> [String: String] {
        var environment = settings
        environment["LD_PRELOAD"] = try? library.get()
        return environment
    }

    struct ShimUnavailable: Error {
        let reason: String
    }
}
