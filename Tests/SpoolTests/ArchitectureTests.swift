import Foundation
import Testing

/// The rules of ARCHITECTURE.md that a grep can check, so that they stay true: where system calls and moves
/// are made, how folders are listed, which files may import Dispatch or Foundation, and the one lock. The
/// layers' "may use" lines are checked in ArchitectureTests+Modules.swift.
@Suite struct ArchitectureTests {
    static let root = Repository.root

    /// The Swift files under `folder`, relative to the repository, with their text.
    static func sources(_ folder: String) throws -> [(path: String, text: String)] {
        let base = root + "/" + folder
        let files = try #require(FileManager.default.enumerator(atPath: base)).compactMap { $0 as? String }.filter {
            $0.hasSuffix(".swift")
        }
        #expect(!files.isEmpty, "no sources under \(folder)")
        return try files.sorted().map {
            ("\(folder)/\($0)", try String(contentsOfFile: base + "/" + $0, encoding: .utf8))
        }
    }

    /// The lines of `text` matching `pattern`, comments left out.
    static func matches(_ pattern: String, in text: String) -> [String] {
        let regex = try! NSRegularExpression(pattern: pattern)
        return text.split(separator: "\n").map(String.init).filter { line in
            let code = line.components(separatedBy: "//").first ?? ""
            return regex.firstMatch(in: code, range: NSRange(code.startIndex..., in: code)) != nil
        }
    }

    /// The folders of Swift code outside System whose system calls are checked.
    static let checkedFolders = [
        "Sources/Spool", "Sources/SpoolHTTP", "Sources/spool-send", "Sources/spool-send-http",
        "Sources/spool-enqueue", "Sources/spool-ctl",
    ]

    /// Each call to a name `checks` picks, bare or through `Glibc.`, outside System, that `allowed` refuses, as
    /// "path: line". Every call on a line is judged, each by its own name.
    static func callsRefused(
        _ checks: (String) -> Bool, allowed: (_ call: String, _ path: String) -> Bool
    ) throws -> [String] {
        // Any call, not a declaration (`func open(`); the names are sorted out after. One short pattern: the
        // toolchain's Foundation leaks its copy of a long one (LeakSanitizer saw 852 bytes for 426 characters).
        let regex = try NSRegularExpression(pattern: #"(?<!func )(?:(?<![.\w])|(?<=\bGlibc\.))([A-Za-z_]\w*)\s*\("#)
        var found: [String] = []
        for folder in checkedFolders {
            for (path, text) in try sources(folder) where !path.hasPrefix("Sources/Spool/System/") {
                for line in text.split(separator: "\n").map(String.init) {
                    let code = line.components(separatedBy: "//").first ?? ""
                    let calls = regex.matches(in: code, range: NSRange(code.startIndex..., in: code)).map {
                        String(code[Range($0.range(at: 1), in: code)!])
                    }.filter(checks)
                    if calls.allSatisfy({ allowed($0, path) }) { continue }
                    found.append("\(path): \(line.trimmingCharacters(in: .whitespaces))")
                }
            }
        }
        return found
    }

    /// File-system calls of libc's or CSpool's are made in System only, but for the four that only look, each
    /// in the one file ARCHITECTURE.md names for it.
    @Test func fileSystemCallsAreMadeInSystemOnly() throws {
        let allowed: [String: String] = [
            "faccessat": "Sources/Spool/Spool/Spool.swift",
            "cspool_is_shared": "Sources/Spool/Spool/SharedStorage.swift",
            "cspool_is_nfs": "Sources/Spool/Spool/SpoolLock.swift",
            "readlink": "Sources/Spool/CommandLine/Arguments.swift",
        ]
        let names: Set<String> = [
            "rename", "renameat", "renameat2", "unlink", "unlinkat", "link", "linkat", "symlink", "symlinkat",
            "mkdir", "mkdirat", "rmdir", "stat", "lstat", "fstat", "fstatat", "statx", "statfs", "fstatfs",
            "access", "faccessat", "readlink", "readlinkat", "realpath", "opendir", "fdopendir", "readdir",
            "getdents64", "chmod", "fchmod", "fchmodat", "chown", "fchown", "fchownat", "truncate", "ftruncate",
            "utimensat", "futimens", "statvfs", "fstatvfs", "open", "openat", "fsync", "fdatasync", "syncfs", "cspool_syncfs", "cspool_o_path",
        ]
        let found = try Self.callsRefused({
            names.contains($0) || $0.hasPrefix("cspool_rename_") || $0.hasPrefix("cspool_is_")
        }) { call, path in allowed[call] == path }
        #expect(found.isEmpty, "file-system calls outside System, beyond the four that only look: \(found)")
    }

    /// The system calls that are not file-system calls stay beside their concept, each in the files
    /// ARCHITECTURE.md names for it.
    @Test func otherSystemCallsStayInTheirNamedFiles() throws {
        let allowed: [String: Set<String>] = [
            "flock": ["Sources/Spool/Spool/SpoolLock.swift"],
            "eventfd": ["Sources/Spool/Sending/Wakeup.swift"],
            "inotify": ["Sources/Spool/Sending/Wakeup.swift"],
            "poll": ["Sources/Spool/Sending/Wakeup.swift", "Sources/Spool/Handlers/HandlerStreams.swift"],
            "kill": [
                "Sources/Spool/Handlers/HandlerProcess.swift", "Sources/Spool/Spool/CrashPoint.swift",
                "Sources/Spool/Names/ProcessIdentity.swift",
            ],
            "rlimit": ["Sources/Spool/CommandLine/SendCommand+Setup.swift"],
            // The person's editor, for `resolve --edit`; handlers are spawned in CSpool.
            "posix_spawn": ["Sources/Spool/CommandLine/ControlSession+Resolve.swift"],
            "waitpid": ["Sources/Spool/CommandLine/ControlSession+Resolve.swift"],
            "sleep": [],
            // The engine's look at a reused connection (peek, shutdown, its addresses) and its own thread.
            "recv": ["Sources/SpoolHTTP/CurlTransfer+Reuse.swift"],
            "shutdown": ["Sources/SpoolHTTP/CurlTransfer+Reuse.swift"],
            "getsockname": ["Sources/SpoolHTTP/CurlTransfer+Reuse.swift"],
            "getpeername": ["Sources/SpoolHTTP/CurlTransfer+Reuse.swift"],
            "pthread_create": ["Sources/SpoolHTTP/CurlEngine.swift"],
            // Datagrams to systemd: its notification socket and the journal.
            "sendto": ["Sources/Spool/System/UnixDatagram.swift"],
            // The environment is read in one place (System/Environment.swift).
            "getenv": [],
        ]
        // A call's concept: the name `allowed` files it under.
        func concept(_ call: String) -> String {
            switch call {
            case let call where call.hasPrefix("inotify_"): "inotify"
            case "setrlimit", "getrlimit": "rlimit"
            case "usleep", "nanosleep": "sleep"
            case "secure_getenv": "getenv"
            default: call
            }
        }
        let names: Set<String> = [
            "flock", "eventfd", "poll", "kill", "setrlimit", "getrlimit", "usleep", "nanosleep", "sleep",
            "posix_spawn", "waitpid", "recv", "shutdown", "getsockname", "getpeername", "pthread_create", "getenv",
            "secure_getenv", "sendto",
        ]
        let found = try Self.callsRefused({ names.contains($0) || $0.hasPrefix("inotify_") }) { call, path in
            allowed[concept(call)]?.contains(path) ?? false
        }
        #expect(found.isEmpty, "system calls outside the files ARCHITECTURE.md names for them: \(found)")
    }

    @Test func queueFilesMoveInTransitionsOnly() throws {
        var found: [String] = []
        for (path, text) in try Self.sources("Sources/Spool") where !path.hasPrefix("Sources/Spool/System/") {
            let file = (path as NSString).lastPathComponent
            // The transitions name every move; Spool+Move.swift makes one, for them alone, through the
            // shared storage's rename or link; a producer's entry in a move's way is set aside by its users.
            let moves = ["Transitions.swift", "Spool+Move.swift", "SharedStorage.swift", "SpoolUsers.swift"]
            if !moves.contains(file) {
                found += Self.matches(#"\.(rename|link|exchange)\("#, in: text).map { "\(path): \($0)" }
            }
            if file != "Transitions.swift", path.hasPrefix("Sources/Spool/Spool/") {
                found += Self.matches(#"(^|[^.\w])move\([^)]*from:"#, in: text)
                    .filter { !$0.contains("func move(") }.map { "\(path): \($0)" }
            }
            // A removal: of advice files and their temporaries, of a filing's marker in the spool directory,
            // and of the person's edited copy, which is outside the spool (`resolve --edit`).
            if ![
                "Transitions.swift", "SharedStorage.swift", "Spool+Hints.swift", "DeferralReason.swift",
                "ControlSession+Resolve.swift", "Spool+FilingMarker.swift",
            ].contains(file) {
                found += Self.matches(#"\.unlink\("#, in: text).map { "\(path): \($0)" }
            }
            // A rename over a name: advice files only (hints in the root, a deferral's reason), the one
            // rewrite of a filed document, and a producer's entry set aside where RENAME_NOREPLACE is missing.
            if !["Transitions.swift", "SpoolUsers.swift", "Spool+Hints.swift", "DeferralReason.swift"].contains(file) {
                found += Self.matches(#"\.replace\("#, in: text).map { "\(path): \($0)" }
            }
        }
        #expect(found.isEmpty, "moves outside Transitions.swift: \(found)")
    }

    /// A folder is listed through a lookup by name (`Spool+Listing.swift`), never through the descriptor held
    /// since the spool was opened: on GlusterFS that descriptor may go on reading a replica that missed a drop.
    @Test func foldersAreListedByName() throws {
        var found: [String] = []
        // Credentials and SetupCheck list folders outside the spool (credentials, TLS files); SpoolCheck and
        // the filing markers list the spool directory itself, the start of every lookup by name.
        let allowed: (String) -> Bool = { line in
            line.hasPrefix("Sources/Spool/Document/Credentials.swift:")
                || line.hasPrefix("Sources/Spool/Reporting/SetupCheck.swift:")
                || line.hasPrefix("Sources/Spool/Reporting/SpoolCheck.swift:") && line.contains("spool.root.")
                || line.hasPrefix("Sources/Spool/Spool/Spool+FilingMarker.swift:") && line.contains("root.")
        }
        for (path, text) in try Self.sources("Sources/Spool") where !path.hasPrefix("Sources/Spool/System/") {
            // A listing through a descriptor takes the closure at once; a listing by name says `(in: folder)`.
            found += Self.matches(#"\.(forEachEntry|forEachRawEntry|forEachRawEntryWithInode)\s*\{|\.entries\(\)"#, in: text)
                .map { "\(path): \($0.trimmingCharacters(in: .whitespaces))" }
                .filter { !allowed($0) }
        }
        #expect(found.isEmpty, "folders listed through a held descriptor: \(found)")
    }

    @Test func dispatchAndFoundationStayOut() throws {
        var found: [String] = []
        for folder in [
            "Sources/Spool", "Sources/SpoolHTTP", "Sources/spool-send", "Sources/spool-send-http",
            "Sources/spool-enqueue", "Sources/spool-ctl"
        ] {
            for (path, text) in try Self.sources(folder) {
                found += Self.matches(#"^import (Foundation|FoundationEssentials|FoundationNetworking)\b"#, in: text)
                    .map { "\(path): \($0)" }
                let dispatchAllowed = [
                    "Sources/Spool/Sending/Wakeup.swift", "Sources/Spool/Sending/Worker+Handler.swift",
                    "Sources/Spool/Sending/PendingRemovals.swift", "Sources/Spool/Sending/ReadAhead.swift",
                ]
                if !dispatchAllowed.contains(path) {
                    found += Self.matches(#"^import Dispatch\b"#, in: text).map { "\(path): \($0)" }
                }
            }
        }
        #expect(found.isEmpty, "imports that slow every start: \(found)")
    }

    /// Shared state is guarded by `Locked` (a pthread mutex) alone: ThreadSanitizer cannot see
    /// Synchronization's `Mutex` on Linux, and a lock it cannot see turns a TSan run into noise.
    @Test func oneLockThatThreadSanitizerCanSee() throws {
        var found: [String] = []
        for folder in [
            "Sources/Spool", "Sources/SpoolHTTP", "Sources/spool-send", "Sources/spool-send-http",
            "Sources/spool-enqueue", "Sources/spool-ctl", "Sources/spool-bench", "Tests/Support", "Tests/SpoolTests",
        ] {
            for (path, text) in try Self.sources(folder) where !path.hasSuffix("/Locked.swift") && !path.hasSuffix("/ArchitectureTests.swift") {
                found += Self.matches(#"\b(Mutex|NSLock|NSRecursiveLock|pthread_mutex_\w+|os_unfair_lock)\b"#, in: text)
                    .map { "\(path): \($0)" }
            }
        }
        #expect(found.isEmpty, "locks other than Locked: \(found)")
    }
}
