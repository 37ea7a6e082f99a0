import Foundation
import SpoolSystem
import Synchronization

/// What a running program writes to a pipe, read as it comes, so that a test waits for a line the program
/// prints (a watcher's "watching …", a retry notice) instead of sleeping for a while.
final class OutputWatcher: Sendable {
    let buffer = Locked(Data())
    let ended = Atomic<Bool>(false)

    /// Starts reading `pipe` on a thread of its own until the writer closes it.
    init(_ pipe: Pipe) {
        let handle = pipe.fileHandleForReading
        Thread.detachNewThread { [self] in
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                buffer.withLock { $0.append(chunk) }
            }
            ended.store(true, ordering: .releasing)
        }
    }

    /// Everything read so far.
    var text: String { buffer.withLock { String(decoding: $0, as: UTF8.self) } }

    /// Waits until the output contains `needle`, for at most `timeout` seconds; returns whether it did.
    @discardableResult
    func wait(for needle: String, timeout: TimeInterval = 10) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if text.contains(needle) { return true }
            if ended.load(ordering: .acquiring) { return text.contains(needle) }
            usleep(5_000)
        }
        return false
    }

    /// Waits until `needle` occurs `count` times, for at most `timeout` seconds; returns whether it did.
    func wait(forOccurrences count: Int, of needle: String, timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if text.components(separatedBy: needle).count > count { return true }
            if ended.load(ordering: .acquiring) { break }
            usleep(20_000)
        }
        return text.components(separatedBy: needle).count > count
    }

    /// Waits for the writer to close the pipe (the program ended), then returns all of it.
    func all(timeout: TimeInterval = 30) -> String {
        let deadline = Date().addingTimeInterval(timeout)
        while !ended.load(ordering: .acquiring), Date() < deadline { usleep(5_000) }
        return text
    }
}
