import Foundation
import Glibc
import Testing
@testable import SpoolSystem
@testable import SpoolNames
@testable import SpoolQueue
@testable import SpoolTestSupport

/// `bin/package`, end to end on this machine: the .deb checked by lintian, installed with dpkg, used by two
/// unprivileged users (one through the set-group-ID spool-enqueue, one a member of the group spool using the
/// shell protocol) and sent by spool-send running as the user spool with the command line of the package's
/// own unit, then removed and purged. Needs root, the Debian tools, and release binaries as fresh as the
/// sources (`bin/spool-send` builds them; `.ci/run` does so first).
@Suite(.serialized) struct DebianPackageTests {
    static let missing: String? = {
        guard Sanitizer.name == nil else { return "skipped under a sanitizer: it installs the release build" }
        guard geteuid() == 0 else { return "not root: installing a package and making users needs root" }
        for tool in ["/usr/bin/dpkg-deb", "/usr/bin/dpkg-shlibdeps", "/usr/bin/lintian", "/usr/bin/setfacl",
                     "/usr/sbin/adduser", "/usr/sbin/useradd", "/usr/bin/systemd-tmpfiles", "/usr/bin/systemd-analyze",
                     "/usr/bin/setpriv"] where !FileManager.default.isExecutableFile(atPath: tool) {
            return "\(tool) is missing (.ci/run installs it)"
        }
        return Package.releaseBinariesAreStale
    }()

    static let spool = "/var/spool/spool"

    @Test(.enabled(if: missing == nil, "\(missing ?? "")"))
    func installedPackageServesTwoUsersWhoCannotReadEachOther() throws {
        let package = try Package.build()
        defer { Package.purge() }
        let lint = try Command.run("/usr/bin/lintian", ["--fail-on", "error,warning", package])
        #expect(lint.status == 0, "lintian: \(lint.stdout)\(lint.stderr)")
        Package.purge()
        let installed = try Command.run("/usr/bin/dpkg", ["-i", package])
        try #require(installed.status == 0, "dpkg -i: \(installed.stdout)\(installed.stderr)")
        try checkLayout()
        for unit in Package.units {
            let verified = try Command.run("/usr/bin/systemd-analyze", ["verify", "/lib/systemd/system/\(unit)"])
            #expect(verified.status == 0 && verified.stderr.isEmpty, "\(unit): \(verified.stderr)")
        }

        let users = try TestUsers()
        defer { users.remove() }
        let server = try TestServer { _ in .respond(204, [:], "") }
        defer { server.stop() }
        let thief = try TestServer { _ in .respond(204, [:], "") }
        defer { thief.stop() }
        try writeAdministratorFiles(users, server, thief: thief)
        let dropped = try drop(users, server, thief: thief)
        try checkNeitherCanRead(users, dropped)
        let attacks = try holdBackAlice(users, server)
        try checkNothingLoosens(users, server)

        try checkMetricsUnit()
        let send = try Package.runUnit("spool-send-once.service")
        #expect(send.status == 0, "spool-send as the unit runs it: \(send.stderr)")
        let paths = Set(server.requests.map(\.path))
        #expect(paths == ["/alice/plain", "/bob/shell", "/bob/profile", "/shared", "/root/drop", "/alice/crash"],
                "the server received \(paths)")
        #expect(send.stderr.contains("new/bobs-folder") && send.stderr.contains("who must remove it"), "\(send.stderr)")
        #expect(FileManager.default.fileExists(atPath: Self.spool + "/new/bobs-folder"))
        #expect(Package.names("new").filter { $0.hasPrefix(attacks.waiting) }.count == 1,
                "alice's write of /shared for tomorrow waits, and bob's of /shared did not wait behind it")
        #expect(thief.requests.isEmpty, "billing's token went to \(thief.requests.map(\.path))")
        let profiled = server.requests.first { $0.path == "/bob/profile" }
        #expect(profiled?.headers["authorization"] == "Bearer b0b-allowed", "bob may use the profile billing")
        try checkFiled(users, dropped, planted: attacks.planted)
        _ = try? FileManager.default.removeItem(atPath: Self.spool + "/new/bobs-folder")
        let check = try Command.run("/usr/bin/spool-ctl", ["--spool", Self.spool, "check"])
        #expect(check.status == 0 && check.stdout == "\(Self.spool): ok\n", "the drop layout is healthy: \(check.stdout)")

        let removed = try Command.run("/usr/bin/dpkg", ["-r", "spool"])
        #expect(removed.status == 0, "\(removed.stderr)")
        for gone in ["/usr/bin/spool-send", "/usr/bin/spool-enqueue", "/lib/systemd/system/spool-send.service"] {
            #expect(!FileManager.default.fileExists(atPath: gone), "dpkg -r leaves \(gone)")
        }
        for kept in ["/etc/spool/spool.conf", "/etc/spool/producers", "/etc/spool/auth/billing", Self.spool + "/failed"] {
            #expect(FileManager.default.fileExists(atPath: kept), "dpkg -r removes \(kept), which Debian keeps")
        }
        let purged = try Command.run("/usr/bin/dpkg", ["-P", "spool"])
        #expect(purged.status == 0, "\(purged.stderr)")
        for gone in ["/etc/spool", Self.spool] {
            #expect(!FileManager.default.fileExists(atPath: gone), "dpkg -P leaves \(gone)")
        }
        let override = try Command.run("/usr/bin/dpkg-statoverride", ["--list", "/usr/bin/spool-enqueue"])
        #expect(override.status != 0 && override.stdout.isEmpty, "the statoverride outlives the purge")
    }

    /// The modes spool(5) promises: producers drop, never list; the rest is the sender's.
    func checkLayout() throws {
        func mode(_ path: String) -> (mode: Int, owner: String, group: String) {
            let attributes = try? FileManager.default.attributesOfItem(atPath: path)
            return ((attributes?[.posixPermissions] as? Int) ?? -1, (attributes?[.ownerAccountName] as? String) ?? "?",
                    (attributes?[.groupOwnerAccountName] as? String) ?? "?")
        }
        let enqueue = try Command.run("/usr/bin/stat", ["-c", "%a %U %G", "/usr/bin/spool-enqueue"])
        #expect(enqueue.stdout == "2755 root spool\n", "spool-enqueue is set-group-ID spool")
        let folders = try Command.run(
            "/usr/bin/stat", ["-c", "%n %a %U %G", Self.spool] + ["tmp", "new", "cur", "failed", "conflict"].map {
                Self.spool + "/" + $0
            } + ["/etc/spool/auth"])
        #expect(folders.stdout == """
            \(Self.spool) 750 spool spool
            \(Self.spool)/tmp 3730 spool spool
            \(Self.spool)/new 3730 spool spool
            \(Self.spool)/cur 700 spool spool
            \(Self.spool)/failed 700 spool spool
            \(Self.spool)/conflict 700 spool spool
            /etc/spool/auth 700 spool spool

            """)
        #expect(mode("/etc/spool/spool.conf").mode == 0o644)
        // The completions where Debian's shells look, and the catalog postinst put in journalctl's database.
        for file in ["/usr/share/bash-completion/completions/spool-send", "/usr/share/zsh/vendor-completions/_spool",
                     "/usr/share/fish/vendor_completions.d/spool-enqueue.fish"] {
            #expect(FileManager.default.fileExists(atPath: file), "\(file)")
        }
        let catalog = try Command.run("/usr/bin/journalctl", ["--list-catalog"])
        #expect(catalog.lines.filter { $0.hasPrefix(LogFields.Event.conflict.messageID + " spool: ") }.count == 1,
                "postinst updated the catalog: \(catalog.stdout.suffix(400))")
    }

    /// spool-metrics.service as its timer runs it: the host spool's figures where node_exporter's textfile
    /// collector reads them, readable by the collector's user.
    func checkMetricsUnit() throws {
        let parent = "/var/lib/prometheus", folder = parent + "/node-exporter"
        let made = !FileManager.default.fileExists(atPath: parent)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer {
            if made { try? FileManager.default.removeItem(atPath: parent) }
            else { try? FileManager.default.removeItem(atPath: folder + "/spool.prom") }
        }
        let metrics = try Package.runUnit("spool-metrics.service")
        #expect(metrics.status == 0 && metrics.stderr.isEmpty, "\(metrics.stderr)")
        let text = (try? String(contentsOfFile: folder + "/spool.prom", encoding: .utf8)) ?? ""
        #expect(text.contains("spool_operations{spool=\"\(Self.spool)\",folder=\"new\"} "), "\(text.prefix(300))")
        let mode = (try? FileManager.default.attributesOfItem(atPath: folder + "/spool.prom"))?[.posixPermissions]
        #expect(mode as? Int == 0o644, "the collector reads it")
    }

    /// The policy: both may send to the test server, and everyone to `thief` (spool(5)'s pattern of a line per
    /// producer and one for all); bob may name the profile billing, which names the test server only.
    func writeAdministratorFiles(_ users: TestUsers, _ server: TestServer, thief: TestServer) throws {
        try "\(users.alice) origin \(server.baseURL)\n\(users.bob) origin \(server.baseURL)\n\(users.bob) auth billing\n"
            .appending("* origin \(thief.baseURL)\n")
            .write(toFile: "/etc/spool/producers", atomically: false, encoding: .utf8)
        try "origin = \(server.baseURL)\nAuthorization: Bearer b0b-allowed\n"
            .write(toFile: "/etc/spool/auth/billing", atomically: false, encoding: .utf8)
        _ = try Command.run("/bin/chown", ["spool:spool", "/etc/spool/auth/billing"])
        chmod("/etc/spool/auth/billing", 0o600)
    }

    struct Dropped {
        /// The file names in new/ of each user's operations.
        var alice: [String], bob: [String]
        /// The id of alice's operation naming a profile she may not use, and of bob's file only he can read.
        var forbidden: String, closed: String
        /// Alice's handler job, which no policy line allows her.
        var job: String
        /// Bob's write naming billing to an origin the profile does not name.
        var stolen: String
    }

    /// Alice drops with the set-group-ID spool-enqueue only (she is not in the group); bob, a member, with the
    /// shell protocol as spool(5) writes it, and with spool-enqueue.
    func drop(_ users: TestUsers, _ server: TestServer, thief: TestServer) throws -> Dropped {
        func enqueue(_ user: String, _ arguments: [String]) throws -> String {
            let result = try users.run(user, "/usr/bin/spool-enqueue", ["--spool", Self.spool] + arguments)
            try #require(result.status == 0, "spool-enqueue as \(user): \(result.stderr)")
            return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let before = Set(Package.names("new"))
        _ = try enqueue(users.alice, ["PUT", server.baseURL + "/alice/plain", "--body", "a"])
        let forbidden = try enqueue(users.alice, ["PUT", server.baseURL + "/alice/profile", "--auth", "billing"])
        let job = try enqueue(users.alice, ["--handler", "rsync-backup", "/srv"])
        let afterAlice = Set(Package.names("new"))
        let shell = try users.run(users.bob, "/bin/sh", ["-c", Package.shellDrop(server.baseURL + "/bob/shell")])
        #expect(shell.status == 0, "the shell protocol as bob: \(shell.stderr)")
        let closed = try users.run(users.bob, "/bin/sh", ["-c", Package.shellDrop(server.baseURL + "/bob/closed", closed: true)])
        #expect(closed.status == 0, "\(closed.stderr)")
        _ = try enqueue(users.bob, ["PUT", server.baseURL + "/bob/profile", "--auth", "billing", "--body", "b"])
        let stolen = try enqueue(users.bob, ["POST", thief.baseURL + "/steal", "--auth", "billing", "--body", "x"])
        let all = Set(Package.names("new"))
        let closedName = closed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        return Dropped(
            alice: Array(afterAlice.subtracting(before)), bob: Array(all.subtracting(afterAlice)),
            forbidden: forbidden, closed: closedName, job: job, stolen: stolen)
    }

    /// What a producer might do to hold back another's writes, and root's own drop: alice queues a write of
    /// /shared for tomorrow, bob one of /shared for now (each producer has an order of their own); bob writes a
    /// name by hand into the lane of alice's /alice/plain, first in its order, and makes a folder in new/;
    /// root drops with spool-enqueue. Returns alice's waiting id and bob's planted one.
    func holdBackAlice(_ users: TestUsers, _ server: TestServer) throws -> (waiting: String, planted: String) {
        let later = try users.run(
            users.alice, "/usr/bin/spool-enqueue", ["PUT", server.baseURL + "/shared", "--not-before", "+1d"])
        #expect(later.status == 0, "\(later.stderr)")
        let now = try users.run(users.bob, "/usr/bin/spool-enqueue", ["PUT", server.baseURL + "/shared"])
        #expect(now.status == 0, "\(now.stderr)")
        let lane = RetryState.keyHash(server.baseURL + "/alice/plain", scope: UInt32(users.aliceUID)!)
        let planted = QueueName(id: "planted-by-bob", state: RetryState(orderMicroseconds: 1, keyHash: lane))
        let document = #"{"method":"PUT","url":"\#(server.baseURL)/bob/planted"}"#
        let script = "printf '%s\\n' '\(document)' > \(Self.spool)/tmp/p && "
            + "mv \(Self.spool)/tmp/p '\(Self.spool)/new/\(planted.fileName.string!)' && mkdir \(Self.spool)/new/bobs-folder"
        let plant = try users.run(users.bob, "/bin/sh", ["-c", script])
        #expect(plant.status == 0, "\(plant.stderr)")
        let root = try Command.run("/usr/bin/spool-enqueue", ["PUT", server.baseURL + "/root/drop"])
        #expect(root.status == 0, "root's drop, into the default spool of a set-group-ID spool-enqueue: \(root.stderr)")
        return (later.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "planted-by-bob")
    }

    /// The set-group-ID spool-enqueue takes the administrator's limits from the host's spool.conf, and its
    /// caller's options and variables only tighten them; its test hook does nothing for a caller.
    func checkNothingLoosens(_ users: TestUsers, _ server: TestServer) throws {
        let conf = "/etc/spool/spool.conf"
        let kept = try String(contentsOfFile: conf, encoding: .utf8)
        defer { try? kept.write(toFile: conf, atomically: false, encoding: .utf8) }
        try "[default]\nproducers = /etc/spool/producers\nmin-free = 999999999999999\nmax-payload = 1k\n"
            .write(toFile: conf, atomically: false, encoding: .utf8)
        let put = ["PUT", server.baseURL + "/alice/loose"]
        for (arguments, environment) in [(["--min-free", "0"] + put, [:]), (put, ["SPOOL_MIN_FREE": "0"])] {
            let refused = try users.run(users.alice, "/usr/bin/spool-enqueue", arguments, environment: environment)
            #expect(refused.status == 75 && refused.stderr.contains("less than the 999999999999999 to keep"),
                    "\(arguments) \(environment): \(refused.status) \(refused.stderr)")
        }
        try "[default]\nproducers = /etc/spool/producers\nmax-payload = 1k\n"
            .write(toFile: conf, atomically: false, encoding: .utf8)
        let large = try users.run(
            users.alice, "/usr/bin/spool-enqueue", ["--max-payload", "1G", "--payload", "-"] + put,
            stdin: Data(repeating: 0x61, count: 4096))
        #expect(large.status != 0 && large.stderr.contains("1024"), "\(large.status) \(large.stderr)")
        let crash = try users.run(
            users.alice, "/usr/bin/spool-enqueue", ["PUT", server.baseURL + "/alice/crash"],
            environment: ["SPOOL_CRASH_AT": "enqueue.written"])
        #expect(crash.status == 0 && !crash.stdout.isEmpty, "SPOOL_CRASH_AT fired: \(crash.status) \(crash.stderr)")
    }

    /// Neither lists new/, cur/ or failed/, nor reads the other's dropped file by its name.
    func checkNeitherCanRead(_ users: TestUsers, _ dropped: Dropped) throws {
        #expect(dropped.alice.count == 3 && dropped.bob.count == 4, "\(dropped)")
        let lock = try Command.run("/usr/bin/stat", ["-c", "%a %U", Self.spool + "/.lock"])
        #expect(lock.stdout == "600 spool\n", "the lock is the sender's from the start")
        for user in [users.alice, users.bob] {
            for folder in ["new", "cur", "failed", "tmp"] {
                let listed = try users.run(user, "/bin/ls", [Self.spool + "/" + folder])
                #expect(listed.status != 0 && listed.stderr.contains("Permission denied"), "\(user) lists \(folder)/")
            }
        }
        let aliceReads = try users.run(users.alice, "/bin/cat", [Self.spool + "/new/" + dropped.bob[0]])
        #expect(aliceReads.status != 0 && aliceReads.stdout.isEmpty, "alice reads bob's \(dropped.bob[0])")
        let bobReads = try users.run(users.bob, "/bin/cat", [Self.spool + "/new/" + dropped.alice[0]])
        #expect(bobReads.status != 0 && bobReads.stdout.isEmpty, "bob, in the group spool, reads alice's file")
    }

    /// What spool-send filed, and spool-ctl's account of who dropped it.
    func checkFiled(_ users: TestUsers, _ dropped: Dropped, planted: String) throws {
        let (forbidden, unreadable, job) = (dropped.forbidden, dropped.closed, dropped.job)
        let failed = Set(Package.names("failed").filter { !$0.hasSuffix(".why") })
        #expect(failed == [forbidden, unreadable, job, planted, dropped.stolen], "failed/ holds \(failed)")
        let stolenWhy = (try? String(contentsOfFile: Self.spool + "/failed/\(dropped.stolen).why", encoding: .utf8)) ?? ""
        #expect(stolenWhy.contains("error: auth") && stolenWhy.contains("auth profile \"billing\" may be sent to "),
                "\(stolenWhy)")
        let plantedWhy = (try? String(contentsOfFile: Self.spool + "/failed/\(planted).why", encoding: .utf8)) ?? ""
        #expect(plantedWhy.contains("error: bad-name") && plantedWhy.contains("not its document's key"), "\(plantedWhy)")
        let jobWhy = (try? String(contentsOfFile: Self.spool + "/failed/\(job).why", encoding: .utf8)) ?? ""
        #expect(jobWhy.contains("may not run the handler 'rsync-backup'") && jobWhy.contains("error: forbidden"),
                "\(jobWhy)")
        let show = try Command.run("/usr/bin/spool-ctl", ["--spool", Self.spool, "show", forbidden])
        #expect(show.stdout.contains("dropped by:") && show.stdout.contains("\(users.alice) (uid \(users.aliceUID))"),
                "\(show.stdout)")
        #expect(show.stdout.contains("may not name the auth profile 'billing' under the producer policy "
            + "/etc/spool/producers; nothing was sent"), "\(show.stdout)")
        let why = (try? String(contentsOfFile: Self.spool + "/failed/\(unreadable).why", encoding: .utf8)) ?? ""
        #expect(why.contains("cannot be read by the sender") && why.contains("dropped-by: \(users.bob)"), "\(why)")
        let list = try Command.run("/usr/bin/spool-ctl", ["--spool", Self.spool, "list", "failed", "--json"])
        #expect(list.stdout.contains("\"dropped_by\":\"\(users.alice)\"") && list.stdout.contains(
            "\"dropped_by\":\"\(users.bob)\""), "\(list.stdout)")
    }
}
