import Foundation
import Glibc
import SpoolTestSupport
import Synchronization
import Testing
@testable import Spool
@testable import SpoolSystem
@testable import SpoolTransport
@testable import SpoolNames
@testable import SpoolDocument
@testable import SpoolConfiguration
@testable import SpoolQueue
@testable import SpoolHandlers
@testable import SpoolSending
@testable import SpoolReporting
@testable import SpoolControl

/// A spool on a file system without `RENAME_NOREPLACE` (bindfs, a FUSE file system, answers EINVAL as
/// GlusterFS does): every move falls back to `link` + `unlink`, and a crash between the two leaves two
/// names of which recovery and every reader keep exactly one.
@Suite(.enabled(if: BindMount.available, "bindfs (FUSE) is needed; see the printed reason"))
struct LinkMoveTests {
    /// Links on the FUSE mount: each operation file's link count, by folder.
    static func linkCounts(_ spool: String, _ folder: String) -> [Int] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "\(spool)/\(folder)")) ?? []).filter {
            !$0.hasPrefix(".")
        }.map { name in
            var st = stat()
            return lstat("\(spool)/\(folder)/\(name)", &st) == 0 ? Int(st.st_nlink) : -1
        }
    }

    @Test func everyStateChangeWorksWithoutNoReplace() throws {
        let temporary = TemporarySpool()
        let mount = try BindMount(base: temporary.directory + "/fuse")
        let spool = mount.path + "/spool"
        let server = try TestServer { request in
            switch request.path {
            case "/bad": .respond(400, [:], "")
            case "/taken": .respond(409, [:], "")
            default: .respond(204, [:], "")
            }
        }
        defer { server.stop() }
        for path in ["/a", "/b", "/bad", "/taken"] {
            let result = try Command.run("spool-enqueue", ["--spool", spool, "PUT", server.baseURL + path])
            #expect(
                result.status == 0, "spool-enqueue on a FUSE file system without RENAME_NOREPLACE: \(result.stderr)")
        }
        // The shell protocol too: dropped under a plain name, admitted by a link in the same folder.
        let document = #"{"method": "PUT", "url": "\#(server.baseURL)/dropped"}"#
        _ = FileManager.default.createFile(atPath: spool + "/tmp/dropped-1", contents: Data(document.utf8))
        rename(spool + "/tmp/dropped-1", spool + "/new/dropped-1")
        let result = try Command.run("spool-send", ["--spool", spool, "--once"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Set(server.requests.map(\.path)) == ["/a", "/b", "/bad", "/taken", "/dropped"])
        // The writes; the conflict also made one GET of the server's version.
        let writes = { server.requests.filter { $0.method != "GET" } }
        #expect(writes().count == 5, "each sent once")
        let names = { (folder: String) in
            ((try? FileManager.default.contentsOfDirectory(atPath: "\(spool)/\(folder)")) ?? []).filter {
                !$0.hasPrefix(".")
            }
        }
        #expect(names("new").isEmpty && names("cur").isEmpty && names("tmp").isEmpty)
        #expect(names("failed").count == 2 && names("conflict").count == 2, "each filed with its reason")
        for folder in ["failed", "conflict"] { #expect(LinkMoveTests.linkCounts(spool, folder).allSatisfy { $0 == 1 }) }
        #expect(FileManager.default.fileExists(atPath: spool + "/.link-moves"), "every later process knows at once")

        // A file hard linked from outside is still refused, once it cannot be a move in progress.
        _ = FileManager.default.createFile(atPath: mount.path + "/secret", contents: Data(document.utf8))
        #expect(link(mount.path + "/secret", spool + "/new/linked-in") == 0)
        let young = try Command.run("spool-send", ["--spool", spool, "--once"])
        #expect(young.status == 0 && names("new") == ["linked-in"], "just linked: maybe a move in progress, left alone")
        let settled = try Command.run(
            "spool-send", ["--spool", spool, "--once"], environment: ["SPOOL_TEST_TWIN_SETTLE": "0"])
        #expect(settled.status == 0 && names("new").isEmpty, "\(settled.stderr)")
        #expect(
            ((try? String(contentsOfFile: spool + "/failed/linked-in.why", encoding: .utf8)) ?? "").contains(
                "hard links"))
        #expect(writes().count == 5, "never sent")
        withExtendedLifetime(mount) {}
    }

    /// bindfs answers EINVAL to `RENAME_EXCHANGE` too: a merge cannot be made without a moment where neither
    /// document has the name, so the write is queued as its own, behind the one it was meant for, and the
    /// producer (on standard error) and the sender's log (for a dropped one) say so.
    @Test func aMergeThatCannotExchangeIsQueuedAndSaid() throws {
        let temporary = TemporarySpool()
        let mount = try BindMount(base: temporary.directory + "/fuse")
        let spool = mount.path + "/spool"
        let server = try TestServer { _ in .respond(201, [:], "") }
        defer { server.stop() }
        func enqueue(_ arguments: [String]) throws -> CommandResult {
            try Command.run("spool-enqueue", ["--spool", spool] + arguments)
        }
        let create = try enqueue([
            "POST", server.baseURL + "/items", "--creates", "--key", "item-1", "--json", #"{"title":"a"}"#,
        ]).stdout.trimmingCharacters(in: .newlines)
        let edit = try enqueue(["PATCH", server.baseURL + "/items/1", "--merge", "--key", "item-1", "--json", #"{"n":2}"#])
        let id = edit.stdout.trimmingCharacters(in: .newlines)
        #expect(edit.status == 0 && !create.isEmpty && !id.isEmpty && id != create, "\(edit.stdout)\(edit.stderr)")
        #expect(
            edit.stderr == "spool-enqueue: warning: not merged into \(create): this file system cannot exchange "
                + "two names atomically; queued as its own write \(id), sent after it\n", "\(edit.stderr)")
        let dropped = #"{"method":"PATCH","url":"\#(server.baseURL)/items/1","key":"item-1","merge":true,"body":{"t":3}}"#
        _ = FileManager.default.createFile(atPath: spool + "/tmp/edit-2", contents: Data(dropped.utf8))
        #expect(rename(spool + "/tmp/edit-2", spool + "/new/edit-2") == 0)
        let sent = try Command.run("spool-send", ["--spool", spool, "--once"])
        #expect(
            sent.status == 0 && sent.stderr.contains(
                "edit-2 (PATCH \(server.baseURL)/items/1): not merged into \(id): this file system cannot exchange "
                    + "two names atomically; it is sent as its own write"), "\(sent.stderr)")
        #expect(server.requests.map { "\($0.method) \($0.path) \($0.text)" } == [
            #"POST /items {"title":"a"}"#, #"PATCH /items/1 {"n":2}"#, #"PATCH /items/1 {"t":3}"#,
        ])
        for folder in ["new", "tmp"] {
            let left = ((try? FileManager.default.contentsOfDirectory(atPath: "\(spool)/\(folder)")) ?? []).filter {
                !$0.hasPrefix(".")
            }
            #expect(left.isEmpty, "\(folder)/ holds \(left): a merged document not made is removed at once")
        }
        withExtendedLifetime(mount) {}
    }

    /// Where moves are `link` + `unlink`, a delivered operation is removed in place by one `unlink`, not
    /// retired to `tmp/` by a move: a crash between that move's link and unlink would leave a `cur/` name,
    /// and recovery would send the delivered write again. Asked to die at the second link (the first is the
    /// claim), spool-send must not reach one.
    @Test func aDeliveryIsOneUnlinkNotAMove() throws {
        let temporary = TemporarySpool()
        let mount = try BindMount(base: temporary.directory + "/fuse")
        let spool = mount.path + "/spool"
        let server = try TestServer { _ in .respond(204, [:], "") }
        defer { server.stop() }
        #expect(try Command.run("spool-enqueue", ["--spool", spool, "PUT", server.baseURL + "/item"]).status == 0)
        let sent = try Command.run(
            "spool-send", ["--spool", spool, "--once"], environment: ["SPOOL_CRASH_AT": "move.linked#2"])
        #expect(sent.status == 0, "a second link was made: \(sent.stderr)")
        let again = try Command.run("spool-send", ["--spool", spool, "--once"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(server.requests.count == 1, "delivered once")
        for folder in ["new", "cur", "tmp"] {
            let left = ((try? FileManager.default.contentsOfDirectory(atPath: "\(spool)/\(folder)")) ?? []).filter {
                !$0.hasPrefix(".")
            }
            #expect(left.isEmpty, "\(folder)/ holds \(left)")
        }
        withExtendedLifetime(mount) {}
    }

    /// A crash at `move.linked` (the Nth link of the process) and what must follow.
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        /// Which command crashes, and at which link.
        let crashInEnqueue: Bool
        let crashAt: String
        let status: Int
        var testDescription: String { name }
    }

    static let cases = [
        Case(name: "enqueue: tmp/ and new/", crashInEnqueue: true, crashAt: "move.linked", status: 204),
        Case(name: "claim: new/ and cur/", crashInEnqueue: false, crashAt: "move.linked", status: 204),
        Case(name: "retry: cur/ and new/", crashInEnqueue: false, crashAt: "move.linked#2", status: 502),
        Case(name: "filing: cur/ and failed/", crashInEnqueue: false, crashAt: "move.linked#3", status: 400),
    ]

    @Test(arguments: cases)
    func crashBetweenLinkAndUnlinkKeepsExactlyOneName(_ scenario: Case) throws {
        let temporary = TemporarySpool()
        let mount = try BindMount(base: temporary.directory + "/fuse")
        let spool = mount.path + "/spool"
        let answered = Atomic<Int>(0)
        let server = try TestServer { _ in
            .respond(answered.add(1, ordering: .relaxed).newValue == 1 ? scenario.status : 204, [:], "")
        }
        defer { server.stop() }
        let enqueue = ["--spool", spool, "PUT", server.baseURL + "/item"]
        let crash = ["SPOOL_CRASH_AT": scenario.crashAt]
        let settled = ["SPOOL_TEST_TWIN_SETTLE": "0"]
        if scenario.crashInEnqueue {
            let killed = try Command.run("spool-enqueue", enqueue, environment: crash)
            #expect(killed.status == SIGKILL)
            #expect(
                LinkMoveTests.linkCounts(spool, "tmp") == [2] && LinkMoveTests.linkCounts(spool, "new") == [2],
                "both names left")
        } else {
            #expect(try Command.run("spool-enqueue", enqueue).status == 0)
            let killed = try Command.run(
                "spool-send", ["--spool", spool, "--once", "--min-backoff", "0"], environment: crash)
            #expect(killed.status == SIGKILL, "\(killed.stderr)")
            let all = ["new", "cur", "failed"].flatMap { LinkMoveTests.linkCounts(spool, $0) }
            #expect(all.filter { $0 == 2 }.count == 2, "\(scenario.name): two names of one file")
        }
        let requestsBefore = server.requests.count
        let again = try Command.run("spool-send", ["--spool", spool, "--once", "--flush"], environment: settled)
        #expect(again.status == 0, "\(again.stderr)")
        let names = { (folder: String) in
            ((try? FileManager.default.contentsOfDirectory(atPath: "\(spool)/\(folder)")) ?? []).filter {
                !$0.hasPrefix(".")
            }
        }
        #expect(
            names("cur").isEmpty && names("new").isEmpty && names("tmp").filter { !$0.hasSuffix(".why") }.isEmpty,
            "\(scenario.name)")
        if scenario.status == 400 {
            #expect(names("failed").count == 2, "filed once, with its reason")
            #expect(server.requests.count == requestsBefore, "the filing was finished, not the request repeated")
        } else {
            #expect(names("failed").isEmpty)
            #expect(server.requests.count == requestsBefore + 1, "\(scenario.name): sent once more, never twice")
        }
        withExtendedLifetime(mount) {}
    }
}
