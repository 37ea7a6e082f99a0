// swift-tools-version:6.0
import PackageDescription

// The programs that run once per operation or per cron tick link the Swift runtime statically in release
// builds: it saves them about 1.5 ms of dynamic loading per start. spool-send-http too: it links no
// Foundation, only libcurl, a C library loaded dynamically by its soname.
let fastStart: [LinkerSetting] = [.unsafeFlags(["-static-stdlib"], .when(configuration: .release))]

// Each layer's "may use" line of ARCHITECTURE.md's code map: the edges of the layering, so that a back-edge is
// a build error (a cycle does not build).
let mayUse: [String: [String]] = [
    "SpoolSystem": [],
    "SpoolTransport": ["SpoolSystem"],
    "SpoolNames": ["SpoolSystem"],
    "SpoolDocument": ["SpoolNames", "SpoolTransport"],
    "SpoolConfiguration": ["SpoolDocument"],
    "SpoolQueue": ["SpoolDocument"],
    "SpoolHandlers": ["SpoolDocument"],
    "SpoolSending": ["SpoolQueue", "SpoolConfiguration", "SpoolHandlers"],
    "SpoolReporting": ["SpoolQueue", "SpoolConfiguration", "SpoolHandlers"],
    "SpoolControl": ["SpoolReporting"],
    "Spool": ["SpoolSending", "SpoolControl"],
    "SpoolWeb": ["Spool"],
    "SpoolHTTP": ["SpoolTransport"],
    "SpoolTestSupport": ["SpoolSystem"],
]

// What a target names as its dependencies: `layers`, everything they may use in turn, and `others` (C
// modules). Why the whole closure: SwiftPM recompiles a module when a module it names has changed, not one
// it reaches through another, and a release build inlines across modules (a class's size, a function's body).
// A program naming only `Spool` kept, after an incremental build, the old size of a class changed two
// layers down and wrote past it (heap corruption in spool-bench); it would as well keep old code.
func uses(_ layers: [String], _ others: [Target.Dependency] = []) -> [Target.Dependency] {
    var seen = Set<String>()
    var work = layers
    while let next = work.popLast() {
        if seen.insert(next).inserted { work += mayUse[next] ?? [] }
    }
    return seen.sorted().map { .target(name: $0) } + others
}

let package = Package(
    name: "spool",
    products: [
        .executable(name: "spool-send", targets: ["spool-send"]),
        .executable(name: "spool-send-http", targets: ["spool-send-http"]),
        .executable(name: "spool-enqueue", targets: ["spool-enqueue"]),
        .executable(name: "spool-ctl", targets: ["spool-ctl"]),
        .executable(name: "spool-bench", targets: ["spool-bench"]),
        .executable(name: "spool-fuzz", targets: ["spool-fuzz"]),
    ],
    targets: [
        // The few libc calls Swift's Glibc module does not expose (renameat2).
        .target(name: "CSpool"),
        // The library, one target per layer: each one's dependencies are the "may use" line of ARCHITECTURE.md's
        // code map, so a back-edge is a build error. They import Glibc (and Synchronization) only, except
        // Sending (Dispatch, for handler threads and the watcher's wake-ups), so that spool-enqueue and
        // spool-ctl start fast.
        .target(name: "SpoolSystem", dependencies: uses(mayUse["SpoolSystem"]!, ["CSpool"]), path: "Sources/Spool/System"),
        .target(name: "SpoolTransport", dependencies: uses(mayUse["SpoolTransport"]!), path: "Sources/Spool/Transport"),
        .target(name: "SpoolNames", dependencies: uses(mayUse["SpoolNames"]!), path: "Sources/Spool/Names"),
        .target(name: "SpoolDocument", dependencies: uses(mayUse["SpoolDocument"]!), path: "Sources/Spool/Document"),
        .target(name: "SpoolConfiguration", dependencies: uses(mayUse["SpoolConfiguration"]!), path: "Sources/Spool/Configuration"),
        .target(name: "SpoolQueue", dependencies: uses(mayUse["SpoolQueue"]!, ["CSpool"]), path: "Sources/Spool/Spool"),
        .target(name: "SpoolHandlers", dependencies: uses(mayUse["SpoolHandlers"]!, ["CSpool"]), path: "Sources/Spool/Handlers"),
        .target(name: "SpoolSending", dependencies: uses(mayUse["SpoolSending"]!, ["CSpool"]), path: "Sources/Spool/Sending"),
        .target(name: "SpoolReporting", dependencies: uses(mayUse["SpoolReporting"]!), path: "Sources/Spool/Reporting"),
        .target(name: "SpoolControl", dependencies: uses(mayUse["SpoolControl"]!), path: "Sources/Spool/Control"),
        // The programs' logic: argument parsing, help texts, each command.
        .target(name: "Spool", dependencies: uses(mayUse["Spool"]!), path: "Sources/Spool/CommandLine"),
        // libcurl's C API, the part spool calls, declared by hand: building needs no -dev package, and the
        // library is linked by its soname, libcurl.so.4, which every Debian and Ubuntu has.
        .target(name: "CCurl", linkerSettings: [.linkedLibrary(":libcurl.so.4")]),
        // The HTTP engine: the only code that speaks HTTP, over libcurl's multi interface. It sees the
        // transport interface, not the spool.
        .target(name: "SpoolHTTP", dependencies: uses(mayUse["SpoolHTTP"]!, ["CCurl"])),
        .executableTarget(name: "spool-send", dependencies: uses(["Spool"]), linkerSettings: fastStart),
        .executableTarget(name: "spool-send-http", dependencies: uses(["Spool", "SpoolHTTP"]), linkerSettings: fastStart),
        .executableTarget(name: "spool-enqueue", dependencies: uses(["Spool"]), linkerSettings: fastStart),
        // libcrypto's HMAC, declared by hand and linked by its soname, for the triage page's CSRF tokens only.
        .target(name: "CCrypto", linkerSettings: [.linkedLibrary(":libcrypto.so.3")]),
        // The triage page (`spool-ctl cgi`): a CGI program over spool-ctl's own subcommands. Only spool-ctl
        // links it, so that no other program loads libcrypto.
        .target(name: "SpoolWeb", dependencies: uses(mayUse["SpoolWeb"]!, ["CCrypto"]), path: "Sources/Spool/Web"),
        .executableTarget(name: "spool-ctl", dependencies: uses(["Spool", "SpoolWeb"]), linkerSettings: fastStart),
        // Drives the library from separate processes in tests (claim races, kill -9).
        .executableTarget(name: "spool-testhelper", dependencies: uses(["Spool"]), path: "Tests/Helper"),
        // A real HTTP/1.1 server for the tests and for spool-bench.
        .target(name: "SpoolTestSupport", dependencies: uses(mayUse["SpoolTestSupport"]!), path: "Tests/Support", exclude: ["quirks.py", "uploads.py", "browser.py", "lazyfs.py"]),
        .executableTarget(name: "spool-bench", dependencies: uses(["Spool", "SpoolHTTP", "SpoolTestSupport"])),
        // The fuzz targets (Fuzz/README.md): a corpus replayer as built here, a libFuzzer fuzzer by Fuzz/run.sh.
        .executableTarget(name: "spool-fuzz", dependencies: uses(["Spool"])),
        .testTarget(name: "SpoolTests", dependencies: uses(["Spool", "SpoolHTTP", "SpoolWeb", "SpoolTestSupport"], ["CCurl"])),
    ]
)
