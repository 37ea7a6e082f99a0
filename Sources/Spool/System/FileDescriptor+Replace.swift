import Glibc

extension FileDescriptor {
    /// Writes `bytes` as the file at `path` (relative to the current directory), replacing what was there at
    /// once: written under a hidden name beside it, then renamed over it, so that a reader (node_exporter's
    /// textfile collector, which reads `*.prom`) sees the old file or the new one, never half of one. Not
    /// synced: what is written here is made again by the next run.
    package static func writeReplacing(_ path: String, _ bytes: [UInt8], mode: mode_t = 0o644) throws(Errno) {
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { String(path[..<$0]) }.map { $0.isEmpty ? "/" : $0 } ?? "."
        let name = FileName(slash.map { String(path[path.index(after: $0)...]) } ?? path)
        let directory = try FileDescriptor.currentDirectory.openDirectory(FileName(folder))
        defer { directory.close() }
        let temporary = FileName(".\(name.string ?? "file").\(getpid()).tmp")
        let file = try directory.open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, mode: mode)
        do throws(Errno) {
            defer { file.close() }
            try file.writeAll(bytes)
        } catch {
            try? directory.unlink(temporary)
            throw error
        }
        do throws(Errno) { try directory.replace(temporary, in: directory, as: name) } catch {
            try? directory.unlink(temporary)
            throw error
        }
    }
}
