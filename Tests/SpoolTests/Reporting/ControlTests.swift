import Foundation
import Glibc
import SpoolTestSupport
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

/// spool-ctl against real spools after real runs.
@Suite struct ControlTests {
    @Test func listJSONAgreesWithTheFilesAfterAMixedRun() throws {
        let spool = TemporarySpool()
        let resource = VersionedResource()
        let server = try TestServer { request in
            switch request.path {
            case "/bad": return .respond(400, [:], "no")
            case "/busy": return .respond(502, [:], "")
            default: return resource.handle(request)
            }
        }
        defer { server.stop() }
        let bad = try spool.enqueue(["PUT", server.baseURL + "/bad"])
        let busy = try spool.enqueue(["PUT", server.baseURL + "/busy"])
        let stale = try spool.enqueue(["PUT", server.baseURL + "/doc", "--if-match", "\"v0\"", "--body", "stale"])
        try spool.send()
        let later = try spool.enqueue(["PUT", server.baseURL + "/later", "--not-before", "+1h"])
        let pending = try spool.enqueue(["POST", server.baseURL + "/pending", "--key", "k1"])

        let result = try Command.run("spool-ctl", ["--spool", spool.path, "list", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        var byID: [String: [String: Any]] = [:]
        for line in result.lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            byID[object["id"] as! String] = object
        }
        #expect(Set(byID.keys) == [bad, busy, stale, later, pending])
        #expect(byID[bad]?["state"] as? String == "failed")
        #expect(byID[stale]?["state"] as? String == "conflict")
        #expect(byID[busy]?["state"] as? String == "deferred")
        #expect(byID[busy]?["attempts"] as? Int == 1)
        #expect(byID[busy]?["last_error"] as? String == "502")
        #expect(byID[later]?["state"] as? String == "deferred")
        #expect(byID[later]?["attempts"] as? Int == 0)
        #expect(byID[pending]?["state"] as? String == "pending")
        #expect(byID[pending]?["key"] as? String == "k1")
        #expect(byID[pending]?["method"] as? String == "POST")
        #expect((byID[bad]?["reason"] as? String)?.contains("400") == true)
        // Each line names the file that is really there.
        for (_, object) in byID {
            let folder = object["folder"] as! String, file = object["file"] as! String
            #expect(FileManager.default.fileExists(atPath: "\(spool.path)/\(folder)/\(file)"), "\(folder)/\(file)")
        }
        #expect(spool.operations("failed") == [bad])
        #expect(spool.operations("conflict") == [stale])
        #expect(spool.names("new").count == 3)
        // Oldest first.
        #expect(
            result.lines.map { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }.compactMap {
                $0?["id"] as? String
            }
                == [bad, busy, stale, later, pending])

        let text = try Command.run("spool-ctl", ["--spool", spool.path, "list", "failed"])
        #expect(text.lines.count == 2)
        #expect(text.lines[1].hasPrefix(bad))
        let stats = try Command.run("spool-ctl", ["--spool", spool.path, "stats", "--json"])
        let counts = try #require(try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any])
        #expect(
            counts["new"] as? Int == 3 && counts["failed"] as? Int == 1 && counts["conflict"] as? Int == 1
                && counts["deferred"] as? Int == 2)
        let prometheus = try Command.run("spool-ctl", ["--spool", spool.path, "stats", "--prometheus"])
        #expect(prometheus.stdout.contains("folder=\"conflict\"} 1"))
        // For node_exporter's textfile collector: the same text as a file replaced at once, nothing left beside.
        let textfiles = spool.directory + "/textfiles"
        try FileManager.default.createDirectory(atPath: textfiles, withIntermediateDirectories: false)
        try "stale".write(toFile: textfiles + "/spool.prom", atomically: false, encoding: .utf8)
        let written = try Command.run(
            "spool-ctl", ["--spool", spool.path, "stats", "--prometheus", "--output", textfiles + "/spool.prom"])
        #expect(written.status == 0 && written.stdout.isEmpty, "\(written.stderr)")
        let file = try String(contentsOfFile: textfiles + "/spool.prom", encoding: .utf8)
        // The same metrics; the oldest pending age may have moved on by a second between the two runs.
        let steady = { (text: String) in text.split(separator: "\n").filter { !$0.contains("oldest_pending_age") } }
        #expect(steady(file) == steady(prometheus.stdout) && file.contains("folder=\"conflict\"} 1"), "\(file)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: textfiles) == ["spool.prom"])
        let unwritable = try Command.run(
            "spool-ctl", ["--spool", spool.path, "stats", "--prometheus", "--output", spool.directory + "/none/x.prom"])
        #expect(unwritable.status == 73 && unwritable.stderr.contains("none/x.prom"), "\(unwritable.stderr)")
    }

    @Test func retryWithIfMatchResolvesAConflict() throws {
        let spool = TemporarySpool()
        let resource = VersionedResource()
        let server = try TestServer { resource.handle($0) }
        defer { server.stop() }
        // Someone else changed the resource first: our edit, made against v1, conflicts.
        try spool.enqueue([
            "PUT", server.baseURL + "/doc", "--if-match", "\"v1\"", "--body", "their edit", "--key", "theirs"
        ])
        try spool.send()
        let ours = try spool.enqueue(["PUT", server.baseURL + "/doc", "--if-match", "\"v1\"", "--body", "our edit"])
        try spool.send()
        #expect(spool.operations("conflict") == [ours])
        #expect(resource.writes == 1)
        let originalKey = server.requests.last?.header("Idempotency-Key")

        // The operator looks at the server, sees v2, and retries with it, pasting the path from ls.
        let retry = try Command.run(
            "spool-ctl", ["--spool", spool.path, "retry", "--if-match", "\"v2\"", "\(spool.path)/conflict/\(ours)"])
        #expect(retry.status == 0, "\(retry.stderr)")
        #expect(spool.names("conflict").isEmpty, "the operation and its reason left conflict/")
        #expect(spool.waiting().map(\.id) == [ours])
        try spool.send()
        #expect(resource.writes == 2)
        #expect(resource.title == "our edit")
        #expect(server.requests.last?.header("If-Match") == "\"v2\"")
        #expect(server.requests.last?.header("Idempotency-Key") != originalKey)
        #expect(spool.names("new").isEmpty)
    }

    @Test func retryKeepsTheKeyAndNowClearsTheWait() throws {
        let spool = TemporarySpool()
        let calls = Locked(0)
        let server = try TestServer { _ in
            calls.withLock {
                $0 += 1; return $0
            } == 1 ? .respond(422, [:], "") : .respond(204, [:], "")
        }
        defer { server.stop() }
        let id = try spool.enqueue(["PUT", server.baseURL + "/x", "--idempotency-key", "fixed-key"])
        try spool.send()
        #expect(spool.operations("failed") == [id])
        #expect(try Command.run("spool-ctl", ["--spool", spool.path, "retry", "--all-failed"]).status == 0)
        try spool.send()
        #expect(server.requests.map { $0.header("Idempotency-Key") } == ["fixed-key", "fixed-key"])

        let later = try spool.enqueue(["PUT", server.baseURL + "/y", "--not-before", "+2h"])
        try spool.send()
        #expect(spool.waiting().map(\.id) == [later])
        #expect(try Command.run("spool-ctl", ["--spool", spool.path, "retry", "--now"]).status == 0)
        try spool.send()
        #expect(spool.names("new").isEmpty)
        #expect(server.requests.count == 3)

        let missing = try Command.run("spool-ctl", ["--spool", spool.path, "retry", "no-such-id"])
        #expect(missing.status == 66)
        #expect(missing.stderr.contains("spool-ctl: error: no operation no-such-id"))
    }

    @Test func discardRemovesOperationAndReason() throws {
        let spool = TemporarySpool()
        let server = try TestServer { _ in .respond(400, [:], "") }
        defer { server.stop() }
        let id = try spool.enqueue(["DELETE", server.baseURL + "/x"])
        try spool.send()
        let show = try Command.run("spool-ctl", ["--spool", spool.path, "show", id])
        #expect(show.stdout.contains("state:") && show.stdout.contains("DELETE"))
        #expect(show.stdout.contains("HTTP 400"))
        let result = try Command.run("spool-ctl", ["--spool", spool.path, "discard", id])
        #expect(result.status == 0, "without a terminal it does not ask")
        #expect(spool.names("failed").isEmpty)

        // The bulk form empties failed/ and leaves the waiting operation alone.
        let filed = try (0..<3).map { _ in try spool.enqueue(["DELETE", server.baseURL + "/x"]) }
        try spool.send()
        let waiting = try spool.enqueue(["PUT", server.baseURL + "/y", "--not-before", "+2h"])
        let all = try Command.run("spool-ctl", ["--spool", spool.path, "discard", "--all-failed"])
        #expect(all.status == 0, "\(all.stderr)")
        #expect(all.stdout == filed.map { "\($0): discarded\n" }.joined(), "in enqueue order")
        #expect(spool.names("failed").isEmpty)
        #expect(spool.waiting().map(\.id) == [waiting])
        let both = try Command.run("spool-ctl", ["--spool", spool.path, "discard", "--all-failed", waiting])
        #expect(both.status == 64 && both.stderr.contains("error:"))
    }

    @Test func checkFindsStaleClaimUnparsableFileAndWorldWritableFolder() throws {
        let spool = TemporarySpool()
        let healthy = try Command.run("spool-ctl", ["--spool", spool.path, "check"])
        #expect(healthy.status == 0, "\(healthy.stdout)")

        // A claim by a process that no longer exists on this host.
        let (dead, _, _) = try Command.start("/bin/true", [])
        dead.waitUntilExit()
        let stale = QueueName(
            id: "stale-op", state: RetryState(orderMicroseconds: 1, keyHash: 1),
            claim: Claim(
                owner: ProcessIdentity(
                    host: ProcessIdentity.current.host, pid: dead.processIdentifier, startTicks: 12345), since: 1))
        spool.drop("cur", stale.fileName.escaped, #"{"method":"PUT","url":"http://h/"}"#)
        spool.drop("new", "broken:o=1,k=0000000000000001", "{not json")
        chmod(spool.path + "/failed", 0o777)
        let result = try Command.run("spool-ctl", ["--spool", spool.path, "check"])
        #expect(result.status == 1)
        #expect(result.stdout.contains("stale claim"))
        #expect(result.stdout.contains("broken") && result.stdout.contains("unreadable operation"))
        #expect(result.stdout.contains("/failed: folder is writable by group or others"))
        chmod(spool.path + "/failed", 0o700)
    }

    @Test func usageErrorsAndHelp() throws {
        for arguments in [[], ["frobnicate"], ["list", "--prometheus"], ["show"], ["retry"], ["list", "tmp"]] {
            let result = try Command.run("spool-ctl", arguments)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.stderr.hasPrefix("spool-ctl: error: "))
        }
        for subcommand in ["", "list", "show", "stats", "retry", "discard", "check"] {
            let result = try Command.run("spool-ctl", subcommand.isEmpty ? ["--help"] : [subcommand, "--help"])
            #expect(result.status == 0)
            #expect(result.stdout.contains("USAGE:") && result.stdout.contains("OPTIONS:"))
        }
    }

    /// An id may be given by its start, as git takes a commit's: one match acts on it, several say which.
    @Test func anIdMayBeGivenByAUniquePrefix() throws {
        let spool = TemporarySpool()
        let first = try spool.enqueue(["PUT", "http://127.0.0.1:9/a"])
        let second = try spool.enqueue(["PUT", "http://127.0.0.1:9/b"])
        let common = String(zip(first, second).prefix { $0 == $1 }.map(\.0))
        let unique = String(first.prefix(common.count + 1))
        let show = try Command.run("spool-ctl", ["--spool", spool.path, "show", unique])
        #expect(show.status == 0 && show.lines.contains { $0.hasPrefix("id:") && $0.hasSuffix(first) }, "\(show.stderr)")
        let hold = try Command.run("spool-ctl", ["--spool", spool.path, "hold", unique])
        #expect(hold.status == 0 && hold.stdout.contains("\(first): held"), "\(hold.stdout)\(hold.stderr)")
        let ambiguous = try Command.run("spool-ctl", ["--spool", spool.path, "show", common])
        #expect(ambiguous.status == 64, "\(ambiguous.stderr)")
        #expect(ambiguous.stderr.contains("\(common) is the start of more than one id: ")
            && ambiguous.stderr.contains(first) && ambiguous.stderr.contains(second), "\(ambiguous.stderr)")
        let none = try Command.run("spool-ctl", ["--spool", spool.path, "show", "zzz"])
        #expect(none.status == 66 && none.stderr.contains("no operation zzz"), "\(none.stderr)")
    }

    /// After an outage an operator retries exactly what list selects: by origin or age, or ids on standard
    /// input (`-`, as postsuper -d -); a bulk discard by origin leaves the others.
    @Test func bulkTriageTakesListsFiltersAndIdsOnStandardInput() throws {
        let spool = TemporarySpool()
        let a = "http://127.0.0.1:\(RefusedOriginTests.closedPort())"
        var b = "http://127.0.0.1:\(RefusedOriginTests.closedPort())"
        while b == a { b = "http://127.0.0.1:\(RefusedOriginTests.closedPort())" }
        let fromA = try (0..<2).map { try spool.enqueue(["--max-attempts", "1", "PUT", a + "/\($0)"]) }
        let fromB = try (0..<3).map { try spool.enqueue(["--max-attempts", "1", "PUT", b + "/\($0)"]) }
        for _ in 0..<6 where !spool.names("new").isEmpty { try spool.send(["--flush"]) }
        #expect(Set(spool.names("failed").filter { !$0.hasSuffix(".why") }) == Set(fromA + fromB))
        let byOrigin = try Command.run("spool-ctl", ["--spool", spool.path, "retry", "--origin", a])
        #expect(byOrigin.status == 0 && Set(spool.waiting().map(\.id)) == Set(fromA), "\(byOrigin.stdout)")
        let young = try Command.run("spool-ctl", ["--spool", spool.path, "retry", "--older-than", "1h"])
        #expect(young.status == 0 && young.stdout.isEmpty, "nothing filed is an hour old: \(young.stdout)")
        let piped = try Command.run("spool-ctl", ["--spool", spool.path, "retry", "-"],
                                    stdin: Data((fromB.prefix(2).joined(separator: "\n") + "\n").utf8))
        #expect(piped.status == 0 && Set(spool.waiting().map(\.id)) == Set(fromA + fromB.prefix(2)), "\(piped.stderr)")
        let discarded = try Command.run("spool-ctl", ["--spool", spool.path, "discard", "--origin", b, "--yes"])
        #expect(discarded.status == 0 && discarded.stdout.contains("\(fromB[2]): discarded"), "\(discarded.stdout)")
        #expect(spool.names("failed").isEmpty && spool.waiting().count == 4)
        let both = try Command.run("spool-ctl", ["--spool", spool.path, "retry", fromA[0], "--origin", a])
        #expect(both.status == 64 && both.stderr.contains("'ID' and '--origin' cannot be used together"), "\(both.stderr)")
    }
}
