import Glibc
import SpoolDocument
import SpoolNames
import SpoolQueue
import SpoolSystem

/// Temporary folders and queues for the cases; everything lives under one directory removed at exit.
enum Fixtures {
    static let root: String = {
        var template = Array("/tmp/spool-bench-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil)
        return String(cString: made!)
    }()
    nonisolated(unsafe) static var counter = 0

    /// A new, empty spool directory.
    static func spool() -> String {
        counter += 1
        let path = "\(root)/s\(counter)"
        _ = try! Spool(path: path)
        return path
    }

    /// A plain directory with `tmp/` and `new/`, for the floors and the shell baselines.
    static func bareDirectory() -> String {
        counter += 1
        let path = "\(root)/d\(counter)"
        for sub in ["", "/tmp", "/new", "/cur"] { mkdir(path + sub, 0o700) }
        return path
    }

    /// Writes back every dirty page before a timed run, as users' queues are: spool-enqueue fsyncs each file,
    /// and a backlog has long been written back. A file unlinked before writeback costs a fraction of one on
    /// disk, so an unsynced queue flatters every contestant, spool and baselines alike.
    static func settle() { sync() }

    /// A body of about 200 bytes.
    static let body = String(repeating: "x", count: 150)

    /// The document of operation `i` to `base`: distinct keys unless `sameKey`.
    static func document(_ i: Int, base: String, sameKey: Bool = false, item: Int? = nil) -> String {
        #"{"method":"PUT","url":"\#(base)/item/\#(item ?? (sameKey ? 0 : i))","body":"\#(body)","idempotency_key":"bench-\#(i)"}"#
    }

    /// Fills `new/` with `count` admitted operations without fsync (setup, not measured): the names carry their
    /// state as spool-enqueue would write them. `due` in the future makes them wait. `keys` spreads them over
    /// that many ordering keys (URLs); by default each has its own.
    static func fill(
        _ spool: String, count: Int, base: String, dueSeconds: Int64 = 0, sameKey: Bool = false, keys: Int? = nil
    ) {
        let start = Timestamp.nowMicroseconds()
        for i in 0..<count {
            let item = keys.map { i % $0 } ?? (sameKey ? 0 : i)
            let url = "\(base)/item/\(item)"
            var state = RetryState(
                orderMicroseconds: start + Int64(i), keyHash: OrderingKey.hash(url), dueSeconds: dueSeconds)
            state.originHash = OrderingKey.originHash((try? Operation.origin(of: base)) ?? base)
            let name = QueueName(id: "bench\(i)", state: state).fileName.string!
            writeText("\(spool)/new/\(name)", document(i, base: base, item: item) + "\n")
        }
    }

    /// Number of entries in a folder, hidden ones excluded.
    static func count(_ path: String) -> Int {
        var n = 0
        try? FileDescriptor.currentDirectory.openDirectory(FileName(path)).forEachEntry { name, _ in
            if !name.isHidden { n += 1 }
        }
        return n
    }

    /// Removes everything the benchmark made.
    static func cleanUp() {
        _ = shell("rm -rf '\(root)'")
    }
}
