import Foundation
import Glibc
import Testing

/// A drop is durable on FUSE file systems too (GlusterFS and ceph-fuse are FUSE): on a FUSE file system that
/// keeps only what was flushed (`Tests/Support/lazyfs.py`, after LazyFS), every drop that exited 0 is whole
/// after a power cut, and each rename into `new/` is followed by a flush that reaches the file system's
/// server. syncfs(2), which a producer of a shared spool used alone, never reaches one.
@Suite(.enabled(if: LazyMount.unavailable == nil, "\(LazyMount.unavailable ?? "")"), .serialized)
struct DropDurabilityTests {
    /// `spool`'s files in `new/` as the lazy file system names them, and whether each survives a power cut.
    static func newFiles(_ mount: LazyMount, _ spool: TemporarySpool) -> [String: Bool] {
        let prefix = "/" + String(spool.path.dropFirst(mount.mount.count + 1)) + "/new/"
        return mount.cut().filter { $0.key.hasPrefix(prefix) && !$0.key.hasPrefix(prefix + ".") }
    }

    /// Whether each file's arrival in `new/` in `received` (a rename, or a link where RENAME_NOREPLACE is
    /// refused) is followed by a flush that reaches the server: of a file (the producer's fsync, by its
    /// descriptor, under whatever name the kernel gives it then) or of `new/` (the owner's).
    static func everyArrivalIsFlushed(_ received: [String]) -> Bool {
        let arrivals = received.indices.filter {
            (received[$0].hasPrefix("rename ") || received[$0].hasPrefix("link ")) && received[$0].contains("/new/")
        }
        return !arrivals.isEmpty && arrivals.allSatisfy { index in
            received[(index + 1)...].contains {
                $0.hasPrefix("fsync /") || ($0.hasPrefix("fsyncdir ") && $0.hasSuffix("/new"))
            }
        }
    }

    /// A producer of a shared spool drops one write and then a batch of eight through spool-enqueue: every
    /// one is whole after a power cut, each rename flushed. Its batch used to be flushed by syncfs alone,
    /// and lost every file.
    @Test func aProducersDropsSurviveAPowerCut() throws {
        let mount = try LazyMount()
        let shared = try SharedSpool(policy: "* origin http://127.0.0.1:9\n", in: mount.mount)
        try shared.produce(4242, ["PUT", "http://127.0.0.1:9/one", "--body", "1"])
        let batch = (0..<8).map { #"{"method":"PUT","url":"http://127.0.0.1:9/b\#($0)","body":"\#($0)"}"# }
        let result = try Command.run(
            "/usr/bin/setpriv", ["--reuid=4242", "--regid=65534", "--clear-groups", Command.path("spool-enqueue"),
                                 "--spool", shared.spool.path, "--batch", "-"],
            environment: ["SPOOL_CONFIG": shared.config], stdin: Data(batch.joined(separator: "\n").utf8))
        #expect(result.status == 0 && result.lines.count == 8, "\(result.stderr)")
        let files = Self.newFiles(mount, shared.spool)
        #expect(files.count == 9 && files.values.allSatisfy { $0 }, "after a power cut: \(files)")
        #expect(Self.everyArrivalIsFlushed(mount.received), "\(mount.received)")
    }

    /// The spool's owner, who can open `new/`, flushes it after the renames: a batch is whole too.
    @Test func theOwnersBatchSurvivesAPowerCut() throws {
        let mount = try LazyMount()
        let spool = TemporarySpool(in: mount.mount)
        let batch = (0..<8).map { #"{"method":"PUT","url":"http://127.0.0.1:9/b\#($0)"}"# }
        let result = try Command.run("spool-enqueue", ["--spool", spool.path, "--batch", "-"],
                                     stdin: Data(batch.joined(separator: "\n").utf8))
        #expect(result.status == 0 && result.lines.count == 8, "\(result.stderr)")
        let files = Self.newFiles(mount, spool)
        #expect(files.count == 8 && files.values.allSatisfy { $0 }, "after a power cut: \(files)")
        #expect(Self.everyArrivalIsFlushed(mount.received), "\(mount.received)")
    }

    /// spool(5)'s shell drop for a member of the drop group, as printed but for the spool's path: its file
    /// is whole after a power cut, and its rename flushed (`sync -f` alone reaches no FUSE server).
    @Test func theDocumentedShellDropSurvivesAPowerCut() throws {
        let mount = try LazyMount()
        let shared = try SharedSpool(policy: "* origin https://api.example.com\n", in: mount.mount)
        let block = try #require(
            try ManPageExamples.blocks(in: "spool.5").first { $0.contains("spool=/var/spool/spool") },
            "spool(5) shows the shell drop into the host's spool")
        let script = block.replacingOccurrences(of: "spool=/var/spool/spool", with: "spool=\(shared.spool.path)")
        let dropped = try Command.run(
            "/usr/bin/setpriv", ["--reuid=4243", "--regid=65534", "--clear-groups", "/bin/sh", "-c", script])
        #expect(dropped.status == 0, "\(dropped.stderr)")
        let files = Self.newFiles(mount, shared.spool)
        #expect(files.count == 1 && files.values.allSatisfy { $0 }, "after a power cut: \(files)")
        #expect(Self.everyArrivalIsFlushed(mount.received), "\(mount.received)")
    }
}
