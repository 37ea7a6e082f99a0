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

    /// A gate for `FAULTSHIM_UNLINK_GATE`: while it is closed (its file exists), every `unlinkat` in a `cur/`
    /// made by a program run with `environment` waits, at most 30 s; `open` lets them through.
    struct UnlinkGate {
        let path: String

        /// A closed gate, a file in `directory`.
        init(in directory: String) {
            path = directory + "/unlink-gate"
            _ = FileManager.default.createFile(atPath: path, contents: nil)
        }

        /// The environment that loads the shim with this gate.
        var environment: [String: String] { FaultShim.environment(["FAULTSHIM_UNLINK_GATE": path]) }

        /// Lets every waiting and later `unlinkat` through.
        func open() { _ = unlink(path) }
    }

    struct ShimUnavailable: Error {
        let reason: String
    }
}
