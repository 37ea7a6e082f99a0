// swift-tools-version:6.0
import PackageDescription

// The programs that run once per operation or per cron tick link the Swift runtime statically in release
// builds: it saves them about 1.5 ms of dynamic loading per start. spool-send-http cannot (a static
// FoundationNetworking needs libcurl's static library), and starts only when there is work.
let fastStart: [LinkerSetting] = [.unsafeFlags(["-static-stdlib"], .when(configuration: .release))]

let package = Package(
    name: "spool",
    products: [
        .executable(name: "spool-send", targets: ["spool-send"]),
        .executable(name: "spool-send-http", targets: ["spool-send-http"]),
        .executable(name: "spool-enqueue", targets: ["spool-enqueue"]),
        .executable(name: "spool-ctl", targets: ["spool-ctl"]),
        .executable(name: "spool-bench", targets: ["spool-bench"]),
    ],
    targets: [
        // The few libc calls Swift's Glibc module does not expose (renameat2).
        .target(name: "CSpool"),
        // All spool logic. Imports Glibc only, so that spool-enqueue and spool-ctl start fast.
        .target(name: "Spool", dependencies: ["CSpool"]),
        // The HTTP transport: the only code that links FoundationNetworking.
        .target(name: "SpoolHTTP", dependencies: ["Spool"]),
        .executableTarget(name: "spool-send", dependencies: ["Spool"], linkerSettings: fastStart),
        .executableTarget(name: "spool-send-http", dependencies: ["Spool", "SpoolHTTP"]),
        .executableTarget(name: "spool-enqueue", dependencies: ["Spool"], linkerSettings: fastStart),
        .executableTarget(name: "spool-ctl", dependencies: ["Spool"], linkerSettings: fastStart),
        // Drives the library from separate processes in tests (claim races, kill -9).
        .executableTarget(name: "spool-testhelper", dependencies: ["Spool"], path: "Tests/Helper"),
        // A real HTTP/1.1 server for the tests and for spool-bench.
        .target(name: "SpoolTestSupport", path: "Tests/Support"),
        .executableTarget(name: "spool-bench", dependencies: ["Spool", "SpoolHTTP", "SpoolTestSupport"]),
        .testTarget(name: "SpoolTests", dependencies: ["Spool", "SpoolTestSupport"]),
    ]
)
