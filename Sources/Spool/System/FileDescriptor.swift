import CSpool
import Glibc

/// An open file descriptor, with the few system calls spool needs, each retrying EINTR and throwing `Errno`.
///
/// The name and shape follow swift-system's `FileDescriptor`, which the toolchain does not ship on Linux
/// and which spool may not depend on as a package: this one holds only the `*at` calls spool uses.
package struct FileDescriptor: Sendable, Equatable {
    /// The raw descriptor.
    package let rawValue: Int32

    /// Wraps a raw descriptor.
    package init(rawValue: Int32) { self.rawValue = rawValue }

    /// The current working directory, for `at` calls on ordinary paths.
    package static let currentDirectory = FileDescriptor(rawValue: AT_FDCWD)

    /// Opens `name` relative to this directory descriptor. `O_CLOEXEC` is always added.
    package func open(_ name: FileName, _ flags: Int32, mode: mode_t = 0o600) throws(Errno) -> FileDescriptor {
        let fd = try retryingInterrupts { name.withCString { Glibc.openat(rawValue, $0, flags | O_CLOEXEC, mode) } }
        return FileDescriptor(rawValue: fd)
    }

    /// Opens the directory `name` relative to this one without following a symbolic link.
    package func openDirectory(_ name: FileName) throws(Errno) -> FileDescriptor {
        try open(name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW)
    }

    /// Names the directory `name` without opening it (`O_PATH`), not following a link: good as the folder of
    /// `openat`, `renameat` and `fstatat`, which check the folder's permission at each use, where a plain open
    /// would need read permission (a shared spool's write-only `new/`).
    package func locateDirectory(_ name: FileName) throws(Errno) -> FileDescriptor {
        try open(name, cspool_o_path() | O_DIRECTORY | O_NOFOLLOW)
    }

    /// Closes the descriptor, ignoring errors: there is nothing useful to do about them on read-only or synced files.
    package func close() { _ = Glibc.close(rawValue) }

    /// Reads the file from its start (`pread`, whatever its position), at most `limit` bytes: returns them, and
    /// whether the file had more.
    package func readPrefix(limit: Int, expectedSize: Int? = nil) throws(Errno) -> (bytes: [UInt8], truncated: Bool) {
        // A regular file's size, known from fstat, sizes the buffer (a small document needs no 64 KiB, whose
        // malloc costs more than its read) and ends the reading: a short read at that size is the end, so
        // one pread suffices. A file that grew since is read on, up to the limit.
        var capacity = min(limit, expectedSize ?? limit) + 1
        var buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
        defer { buffer.deallocate() }
        var count = 0
        while count < limit + 1 {
            if count == capacity {
                let larger = UnsafeMutableRawPointer.allocate(byteCount: limit + 1, alignment: 16)
                larger.copyMemory(from: buffer, byteCount: count)
                buffer.deallocate()
                (buffer, capacity) = (larger, limit + 1)
            }
            let asked = capacity - count
            let n = try read(into: buffer + count, count: asked, at: Int64(count))
            if n == 0 { break }
            count += n
            if n < asked, count == expectedSize { break }
        }
        return (Array(UnsafeRawBufferPointer(start: buffer, count: min(count, limit))), count > limit)
    }

    /// Reads until end of file, at most `limit` bytes: returns them, and whether the file had more.
    package func readAll(limit: Int) throws(Errno) -> (bytes: [UInt8], truncated: Bool) {
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while result.count <= limit {
            let n = try retryingInterrupts {
                chunk.withUnsafeMutableBytes { Glibc.read(rawValue, $0.baseAddress, $0.count) }
            }
            if n == 0 { return (result, false) }
            result.append(contentsOf: chunk[0..<n])
        }
        return (Array(result[0..<limit]), true)
    }

    /// Reads at most `count` bytes from the file position into `buffer` (`read`): 0 at the end of the input.
    package func read(into buffer: UnsafeMutableRawPointer, count: Int) throws(Errno) -> Int {
        try retryingInterrupts { Glibc.read(rawValue, buffer, count) }
    }

    /// Reads at most `count` bytes at `offset` into `buffer` without moving the file position (`pread`): 0 at the
    /// end of the file.
    package func read(into buffer: UnsafeMutableRawPointer, count: Int, at offset: Int64) throws(Errno) -> Int {
        try retryingInterrupts { Glibc.pread(rawValue, buffer, count, off_t(offset)) }
    }

    /// Copies `count` bytes from `offset` of this file to the end of `target`, a piece at a time; EIO if this file
    /// ends first.
    package func copy(_ count: Int64, from offset: Int64, to target: FileDescriptor) throws(Errno) {
        let capacity = 256 * 1024
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
        defer { buffer.deallocate() }
        var done: Int64 = 0
        while done < count {
            let read = try self.read(into: buffer, count: Int(min(Int64(capacity), count - done)), at: offset + done)
            if read == 0 { throw .ioError }
            try target.writeAll(Array(UnsafeRawBufferPointer(start: buffer, count: read)))
            done += Int64(read)
        }
    }

    /// Sets the file's modification time to now (`futimens`): a claim's sign of life during a long upload.
    package func touch() throws(Errno) {
        let now = (1 << 30) - 1  // UTIME_NOW, a macro Swift does not import
        var times = [timespec(tv_sec: 0, tv_nsec: now), timespec(tv_sec: 0, tv_nsec: now)]
        _ = try retryingInterrupts { futimens(rawValue, &times) }
    }

    /// Sets the file's modification time to `nanoseconds` since the epoch (`futimens`), its access time left.
    package func setModified(nanoseconds: Int64) throws(Errno) {
        let omit = (1 << 30) - 2  // UTIME_OMIT, a macro Swift does not import
        let seconds = nanoseconds / 1_000_000_000, rest = nanoseconds % 1_000_000_000
        var times = [timespec(tv_sec: 0, tv_nsec: omit), timespec(tv_sec: Int(seconds), tv_nsec: Int(rest))]
        _ = try retryingInterrupts { futimens(rawValue, &times) }
    }

    /// Writes every byte, looping over short writes.
    package func writeAll(_ bytes: [UInt8]) throws(Errno) {
        var offset = 0
        while offset < bytes.count {
            let n = try retryingInterrupts {
                bytes.withUnsafeBytes { Glibc.write(rawValue, $0.baseAddress! + offset, $0.count - offset) }
            }
            offset += n
        }
    }

    /// Flushes the file's data and metadata to the disk.
    package func sync() throws(Errno) {
        try retryingInterrupts { Glibc.fsync(rawValue) }
    }

    /// Gives the file to user `owner` (`fchown`; the group stays): root keeping a rewritten operation its
    /// producer's.
    package func changeOwner(to owner: UInt32) throws(Errno) {
        try retryingInterrupts { Glibc.fchown(rawValue, owner, UInt32.max) }
    }

    /// Sets the file's permission bits to `mode` (`fchmod`), whatever the umask made of them at creation.
    package func changeMode(to mode: mode_t) throws(Errno) {
        try retryingInterrupts { Glibc.fchmod(rawValue, mode) }
    }

    /// Gives the file to group `group` (`fchown`; the owner stays): a file the drop group must write.
    package func changeGroup(to group: gid_t) throws(Errno) {
        try retryingInterrupts { Glibc.fchown(rawValue, UInt32.max, group) }
    }

    /// Flushes the whole file system this descriptor is on (`syncfs`): what makes a rename durable for a
    /// process that may not open the folder it renamed into (a shared spool's `new/`, write-only to producers).
    package func syncFileSystem() throws(Errno) {
        try retryingInterrupts { cspool_syncfs(rawValue) }
    }

    /// The bytes free to an unprivileged user on this file's file system (`fstatvfs`).
    package func availableBytes() throws(Errno) -> Int {
        var info = statvfs()
        try retryingInterrupts { fstatvfs(rawValue, &info) }
        return Int(info.f_bavail) * Int(info.f_frsize)
    }

    /// The file's status.
    package func status() throws(Errno) -> FileStatus {
        var st = stat()
        try retryingInterrupts { Glibc.fstat(rawValue, &st) }
        return FileStatus(st)
    }

    /// Whether this process may use `name` in this directory as `mode` says (`R_OK`, `W_OK`, `X_OK`), by its
    /// effective ids (a set-group-ID program's group counts), as an open would be judged.
    package func allows(_ name: FileName, _ mode: Int32) -> Bool {
        name.withCString { faccessat(rawValue, $0, mode, AT_EACCESS) } == 0
    }

    /// The status of `name` in this directory, without following a symbolic link.
    package func status(of name: FileName) throws(Errno) -> FileStatus {
        var st = stat()
        try retryingInterrupts { name.withCString { Glibc.fstatat(rawValue, $0, &st, AT_SYMLINK_NOFOLLOW) } }
        return FileStatus(st)
    }

    /// Renames `name` in this directory to `newName` in `directory`, failing with `fileExists` rather than
    /// replacing an entry: a move must never destroy another operation.
    package func rename(_ name: FileName, to directory: FileDescriptor, as newName: FileName) throws(Errno) {
        try retryingInterrupts {
            name.withCString { old in
                newName.withCString { new in cspool_rename_noreplace(rawValue, old, directory.rawValue, new) }
            }
        }
    }

    /// Makes `newName` in `directory` a second name of `name` in this one, failing with `fileExists` when it
    /// is taken: `link(2)` never replaces an entry, on any POSIX file system.
    package func link(_ name: FileName, to directory: FileDescriptor, as newName: FileName) throws(Errno) {
        try retryingInterrupts {
            name.withCString { old in
                newName.withCString { new in Glibc.linkat(rawValue, old, directory.rawValue, new, 0) }
            }
        }
    }

    /// Swaps the files of `name` in this directory and `otherName` in `directory`, atomically: both names exist
    /// before and after, each naming the other's file (`RENAME_EXCHANGE`; EINVAL where unsupported).
    package func exchange(_ name: FileName, with otherName: FileName, in directory: FileDescriptor) throws(Errno) {
        try retryingInterrupts {
            name.withCString { old in
                otherName.withCString { new in cspool_rename_exchange(rawValue, old, directory.rawValue, new) }
            }
        }
    }

    /// Renames `name` in this directory to `newName` in `directory`, atomically replacing what was there.
    package func replace(_ name: FileName, in directory: FileDescriptor, as newName: FileName) throws(Errno) {
        try retryingInterrupts {
            name.withCString { old in
                newName.withCString { new in Glibc.renameat(rawValue, old, directory.rawValue, new) }
            }
        }
    }

    /// Removes the file `name` from this directory.
    package func unlink(_ name: FileName) throws(Errno) {
        try retryingInterrupts { name.withCString { Glibc.unlinkat(rawValue, $0, 0) } }
    }

    /// Creates the directory `name` in this directory.
    package func makeDirectory(_ name: FileName, mode: mode_t) throws(Errno) {
        try retryingInterrupts { name.withCString { Glibc.mkdirat(rawValue, $0, mode) } }
    }
}

extension FileDescriptor {
    /// Whether this descriptor and `name` under `directory` are one file (same device and inode): false
    /// when the descriptor no longer answers, true when the name cannot be looked at (out of reach as well).
    package func isSameFile(as name: FileName, in directory: FileDescriptor) -> Bool {
        guard case let .success(nowSeconds) = Result(catching: { () throws(Errno) in try directory.status(of: name) })
        else { return true }
        guard case let .success(held) = Result(catching: { () throws(Errno) in try status() }) else { return false }
        return held.device == nowSeconds.device && held.inode == nowSeconds.inode
    }
}
