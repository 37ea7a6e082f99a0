import Glibc

/// Writes a program the tests run (a handler, an editor, a stand-in for a tool) with `mode`, through a
/// descriptor opened close-on-exec.
///
/// Foundation's `createFile` and `write(toFile:)` open without `O_CLOEXEC`. A process another test spawns
/// in that moment without closing what it inherits (Apache's `posix_spawn`) would keep the file open for
/// writing as long as it lives, and every `execve` of it would fail with ETXTBSY: seen under ASan as a
/// handler that "cannot start", with all of its jobs left waiting.
func writeExecutable(_ path: String, _ text: String, mode: mode_t = 0o755) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    precondition(fd >= 0, "cannot create \(path): errno \(errno)")
    let bytes = Array(text.utf8)
    let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    precondition(written == bytes.count, "cannot write \(path): errno \(errno)")
    close(fd)
    chmod(path, mode)
}
