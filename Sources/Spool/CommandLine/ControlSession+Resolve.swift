import Glibc
import SpoolConfiguration
import SpoolControl
import SpoolDocument
import SpoolHandlers
import SpoolNames
import SpoolQueue
import SpoolReporting
import SpoolSending
import SpoolSystem
import SpoolTransport

/// `spool-ctl resolve`: a person's decision on one conflict, and `show`'s view of mine and theirs.
extension ControlSession {
    /// `spool-ctl resolve ID`: keeps mine (back in `new/` over the server's version), theirs (discarded), or an
    /// edited body.
    package mutating func resolve() {
        guard let item = find(command.positionals[0]) else { return }
        let what = item.operation.map { " (\($0.summary))" } ?? ""
        do {
            if command.flags.contains("--keep-theirs") {
                let etag = ConflictVersions.serverETag(item.reason)
                try spool.keepTheirs(item)
                let version = etag.map { " \($0)" } ?? ""
                Program.printOut("\(item.id)\(what): discarded; the server's version\(version) stands\n")
            } else if command.flags.contains("--edit") {
                guard let body = try edit(item) else { return }
                let etag = try spool.keepMine(item, body: body)
                Program.printOut("\(item.id)\(what): back in new/ with the edited body and If-Match \(etag)\n")
            } else {
                let etag = try spool.keepMine(item)
                Program.printOut("\(item.id)\(what): back in new/ with If-Match \(etag), over the server's version\n")
            }
        } catch {
            report(error)
        }
    }

    /// Opens the person's editor on my body (the merge view when both versions are JSON) and returns what they
    /// saved as the write's new body; nil, with a message, when they saved nothing.
    private mutating func edit(_ item: QueueItem) throws(ControlError) -> JSON? {
        // Refused before the editor opens, as keeping mine would refuse it after.
        _ = try Spool.overwritableETag(of: item)
        if item.operation?.payload != nil { throw .payloadNotEditable(id: item.id) }
        let versions = spool.versions(of: item)
        let start = versions.bothJSON ? versions.mergeView : versions.mine
        let directory = Environment.value("TMPDIR").flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        let path = "\(directory)/spool-resolve-\(item.id)-\(UniqueName.next().id)" + (versions.mineJSON != nil
            ? ".json" : ".txt")
        do throws(Errno) {
            let fd = try FileDescriptor.currentDirectory.open(FileName(path), O_WRONLY | O_CREAT | O_EXCL, mode: 0o600)
            defer { fd.close() }
            try fd.writeAll(Array(start.utf8))
        } catch {
            throw .io(path: path, error)
        }
        defer { try? FileDescriptor.currentDirectory.unlink(FileName(path)) }
        let editor = ["VISUAL", "EDITOR"].lazy.compactMap { Environment.value($0) }.first { !$0.isEmpty } ?? "vi"
        guard ControlSession.runEditor(editor, path) else {
            throw .invalidEdit(id: item.id, why: "the editor (\(editor)) failed")
        }
        let saved: [UInt8]
        do throws(Errno) {
            let fd = try FileDescriptor.currentDirectory.open(FileName(path), O_RDONLY)
            defer { fd.close() }
            saved = try fd.readAll(limit: Spool.defaultMaxDocumentSize).bytes
        } catch {
            throw .io(path: path, error)
        }
        let text = String(decoding: saved, as: UTF8.self)
        guard !text.trimmingWhitespace().isEmpty else {
            Program.printOut("\(item.id): the edited body is empty; nothing was changed\n")
            return nil
        }
        return try Spool.editedBody(text, of: item, mineIsJSON: versions.mineJSON != nil)
    }

    /// Runs `editor` on `path` as git runs `core.editor`: through the shell, so that `EDITOR="code --wait"`
    /// works, with the path as an argument, never spliced into the command. True when it exited 0.
    private static func runEditor(_ editor: String, _ path: String) -> Bool {
        let argv = ["/bin/sh", "-c", editor + " \"$1\"", editor, path]
        var cArguments = argv.map { strdup($0) } + [nil]
        defer { for pointer in cArguments { free(pointer) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, "/bin/sh", nil, nil, &cArguments, environ) == 0 else { return false }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return status & 0x7F == 0 && (status >> 8) & 0xFF == 0
    }

    /// `show`'s part for a conflict: my body and the server's version, or with `--diff` only their diff.
    package func showVersions(_ item: QueueItem) {
        let versions = spool.versions(of: item)
        if command.flags.contains("--diff") {
            Program.printOut((versions.theirs == nil
                ? "\(item.id): no server version to compare with: \(versions.theirsNote ?? "none was fetched")\n"
                : versions.diffText).replacingControlCharacters(keepingLines: true))
            return
        }
        func indented(_ text: String) -> String {
            text.split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }.joined(separator: "\n")
        }
        var out = "mine" + (versions.mineETag.map { " (made against \($0))" } ?? "") + ":\n"
        out += indented(versions.mine) + "\n"
        out += "theirs" + (versions.theirsETag.map { " (ETag \($0))" } ?? "") + ":\n"
        if let note = versions.theirsNote { out += "  (\(note))\n" }
        if let theirs = versions.theirs { out += indented(theirs) + "\n" }
        Program.printOut(out.replacingControlCharacters(keepingLines: true))
    }
}
