import SpoolConfiguration
import SpoolDocument
import SpoolHandlers
import SpoolNames
import SpoolQueue
import SpoolSystem
import SpoolTransport

/// What `spool-ctl check` finds wrong with a spool: layout, modes, stale claims, unreadable files, strays.
package struct SpoolCheck: Sendable {
    /// One problem, with the path it concerns.
    package struct Finding: Sendable {
        /// The file or folder the problem concerns.
        package let path: String
        /// What is wrong, in one line, and what to do about it.
        package let problem: String
    }

    /// Whether a folder's mode is a drop folder's (spool(5), A spool for many users): the group may write and
    /// search but not read, others nothing, and the sticky bit keeps one producer from another's files.
    static func isDropFolder(_ permissions: UInt32) -> Bool {
        permissions & 0o1000 != 0 && permissions & 0o070 == 0o030 && permissions & 0o007 == 0
    }

    /// Everything found; empty when the spool is healthy.
    package private(set) var findings: [Finding] = []

    /// Checks `spool`.
    package init(
        spool: Spool,
        leaseSeconds: Int64 = Spool.defaultLeaseSeconds(timeoutSeconds: TransportSettings().timeoutSeconds),
        nowSeconds: Int64 = Timestamp.nowSeconds()
    ) throws {
        let path = spool.path
        if let status = try? spool.root.status(), status.permissions & 0o022 != 0 {
            add(
                path,
                "the spool directory is writable by group or others (mode \(String(status.permissions, radix: 8))); "
                    + "chmod 700 it"
            )
        }
        try spool.root.forEachEntry { name, _ in
            guard !name.isHidden else { return }
            if let text = name.string, Spool.Folder(rawValue: text) != nil { return }
            add("\(path)/\(name.escaped)", "stray entry in the spool root; operations belong in new/ (see spool(5))")
        }
        // A spool many users drop into (spool(5)): tmp/ and new/ are the drop group's, write-and-search only and
        // sticky, and the dropped files are readable by the group (the sender reads through it, or an ACL).
        let shared = (try? spool.directory(.new).status()).map { SpoolCheck.isDropFolder($0.permissions) } ?? false
        for folder in Spool.Folder.allCases {
            let directory = spool.directory(folder)
            if let status = try? directory.status(), status.permissions & 0o022 != 0,
               !(shared && (folder == .tmp || folder == .new) && SpoolCheck.isDropFolder(status.permissions))
            {
                add(
                    "\(path)/\(folder.rawValue)",
                    "folder is writable by group or others (mode \(String(status.permissions, radix: 8))); chmod 700 it"
                )
            }
            var names = Set<String>()
            try spool.forEachEntry(in: folder) { name, _ in
                guard !name.isHidden else { return }
                names.insert(name.string ?? name.escaped)
                let entryPath = spool.displayPath(folder, name)
                if let status = try? directory.status(of: name), status.isRegularFile,
                   status.permissions & (shared ? 0o037 : 0o077) != 0
                {
                    add(
                        entryPath,
                        "file is readable or writable by group or others (mode "
                            + "\(String(status.permissions, radix: 8))); queue files are "
                            + (shared ? "0640 at most in a shared spool" : "0600")
                    )
                }
                switch folder {
                case .tmp:
                    if let status = try? directory.status(of: name),
                        nowSeconds - status.modifiedMicroseconds / 1_000_000 > Spool.temporaryFileLifetimeSeconds
                    {
                        add(
                            entryPath,
                            "abandoned temporary file older than 36 hours; the next spool-send run removes it")
                    }
                case .new, .cur:
                    checkOperation(spool, folder, name, entryPath, leaseSeconds: leaseSeconds, nowSeconds: nowSeconds)
                case .failed, .conflict:
                    break
                }
            }
            if folder == .failed || folder == .conflict {
                for name in names where !name.hasSuffix(".why") && !names.contains(name + ".why") {
                    add("\(path)/\(folder.rawValue)/\(name)", "no reason file \(name).why beside it")
                }
                for name in names where name.hasSuffix(".why") && !names.contains(String(name.dropLast(4))) {
                    add(
                        "\(path)/\(folder.rawValue)/\(name)",
                        "reason without its operation: a filing cut short by a crash, or a stale reason; the next "
                            + "spool-send run finishes the filing or removes it"
                    )
                }
            }
        }
    }

    /// Records one problem with `path`.
    package mutating func add(_ path: String, _ problem: String) {
        findings.append(Finding(path: path, problem: problem))
    }

    /// Checks an entry of `new/` or `cur/`: its name, its claim in `cur/` (missing or stale), and that it reads.
    package mutating func checkOperation(
        _ spool: Spool, _ folder: Spool.Folder, _ name: FileName, _ entryPath: String, leaseSeconds: Int64,
        nowSeconds: Int64
    ) {
        guard let queued = QueueName(name) else {
            add(entryPath, "\(OperationID.whyInvalid(name)); the next spool-send run files it in failed/")
            return
        }
        if folder == .cur {
            guard let claim = queued.claim else {
                add(entryPath, "entry in cur/ without a claim; move it to new/ by hand if it is an operation")
                return
            }
            if SharedStorage.isStale(claim, leaseSeconds: leaseSeconds, nowSeconds: nowSeconds) {
                add(
                    entryPath,
                    "stale claim: worker pid \(claim.owner.pid) on \(claim.owner.host) is gone; the next spool-send "
                        + "run returns it to new/"
                )
            }
        }
        do {
            _ = try spool.readOperation(folder, name, maxSize: Spool.defaultMaxDocumentSize, maxPayload: .max)
        } catch {
            switch error {
            case let .rejected(rejection):
                add(entryPath, "unreadable operation: \(rejection); the next spool-send run files it in failed/")
            case let .fault(fault):
                add(entryPath, "\(fault)")
            case .twin:
                add(entryPath, "\(error)")
            }
        }
    }
}
