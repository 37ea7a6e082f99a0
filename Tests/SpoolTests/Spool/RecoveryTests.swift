import Foundation
import Glibc
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

@Suite struct RecoveryTests {
    @Test func claimOfAKilledWorkerIsRecoveredAndALiveOneIsNot() throws {
        let temporary = TemporarySpool()
        let spool = try temporary.open()
        let id = try spool.enqueue(
            try Operation(document: .object([("method", .string("PUT")), ("url", .string("http://h/1"))])))
        // Give it attempts already made, to see they survive recovery.
        let original = temporary.names("new")[0]
        var name = try #require(QueueName(FileName(original)))
        name.state?.attempts = 2
        name.state?.lastError = "503"
        try FileManager.default.moveItem(
            atPath: "\(temporary.path)/new/\(original)", toPath: "\(temporary.path)/new/\(name.fileName.escaped)")

        let (holder, out, _) = try Command.start("spool-testhelper", ["claim-and-hold", temporary.path])
        let claimedLine = out.fileHandleForReading.availableLine()
        #expect(claimedLine == id)
        #expect(temporary.names("cur").count == 1)

        let whileAlive = try Command.run("spool-testhelper", ["recover", temporary.path, "0"])
        #expect(whileAlive.stdout.isEmpty, "a live claim must not be stolen")
        #expect(temporary.names("cur").count == 1)
        #expect(temporary.names("new").isEmpty)

        kill(holder.processIdentifier, SIGKILL)
        holder.waitUntilExit()
        let afterKill = try Command.run("spool-testhelper", ["recover", temporary.path])
        #expect(afterKill.lines == [id])
        #expect(temporary.names("cur").isEmpty)
        #expect(temporary.names("new") == [name.fileName.escaped])
        _ = spool
    }

    /// Where `/proc` cannot be read (not mounted, no descriptor left), whether a claim's owner runs cannot be
    /// known: the claim waits for its lease, and a live one is never taken.
    @Test(.enabled(if: FaultShim.available, "the LD_PRELOAD shim needs a C compiler"), arguments: ["EMFILE", "EACCES"])
    func aClaimWhoseOwnerCannotBeLookedUpWaitsForItsLease(errno name: String) throws {
        let temporary = TemporarySpool()
        let spool = try temporary.open()
        let id = try spool.enqueue(
            try Operation(document: .object([("method", .string("PUT")), ("url", .string("http://h/1"))])))
        let (holder, out, _) = try Command.start("spool-testhelper", ["claim-and-hold", temporary.path])
        defer { kill(holder.processIdentifier, SIGKILL); holder.waitUntilExit() }
        #expect(out.fileHandleForReading.availableLine() == id)
        // The holder's /proc/PID/stat fails to open, and then every one, the recovering process's own included.
        let holders = ["FAULTSHIM_OPEN_PATH": "\(name):/proc/\(holder.processIdentifier)/stat"]
        for settings in [holders, ["FAULTSHIM_OPEN": "\(name):stat"]] {
            let blind = try Command.run(
                "spool-testhelper", ["recover", temporary.path], environment: FaultShim.environment(settings))
            #expect(blind.status == 0 && blind.stdout.isEmpty, "a live claim must not be taken: \(blind.stdout)")
            #expect(temporary.names("cur").count == 1 && temporary.names("new").isEmpty)
        }
    }

    @Test func claimFromAnotherHostIsRecoveredAfterTheLease() throws {
        let temporary = TemporarySpool()
        let nowSeconds = Timestamp.nowSeconds()
        let state = RetryState(orderMicroseconds: 1, keyHash: 7, attempts: 1)
        let old = QueueName(
            id: "old", state: state,
            claim: Claim(owner: ProcessIdentity(host: "elsewhere", pid: 1, startTicks: 1), since: nowSeconds - 1000))
        let young = QueueName(
            id: "young", state: state,
            claim: Claim(owner: ProcessIdentity(host: "elsewhere", pid: 1, startTicks: 1), since: nowSeconds - 10))
        // Written before they were claimed, as every queue file is; a file touched since (an upload in
        // progress) keeps its claim, which the third one shows.
        let written = Date(timeIntervalSince1970: Double(nowSeconds - 2000))
        temporary.drop("cur", old.fileName.escaped, "{}", modified: written)
        temporary.drop("cur", young.fileName.escaped, "{}", modified: written)
        let touched = QueueName(
            id: "touched", state: state,
            claim: Claim(owner: ProcessIdentity(host: "elsewhere", pid: 1, startTicks: 1), since: nowSeconds - 1000))
        temporary.drop(
            "cur", touched.fileName.escaped, "{}", modified: Date(timeIntervalSince1970: Double(nowSeconds - 5)))
        let spool = try temporary.open()
        var handedOver: [String]?
        let recovered = try spool.withLock { transaction throws(SystemCallError) in
            try transaction.recoverStaleClaims(leaseSeconds: 300) { handedOver = $0.map(\.escaped) }
        }
        #expect(recovered == ["old"])
        #expect(temporary.names("new") == ["old:o=1,k=0000000000000007,a=1"])
        #expect(temporary.names("cur") == [touched.fileName.escaped, young.fileName.escaped])
        // A claim went back: the listing no longer says what cur/ holds, and the light front lists it again.
        #expect(handedOver == nil, "\(handedOver ?? [])")
        // Nothing stale: the listing is what the front plans from instead of listing cur/ again.
        let again = try spool.withLock { transaction throws(SystemCallError) in
            try transaction.recoverStaleClaims(leaseSeconds: 300) { handedOver = $0.map(\.escaped) }
        }
        #expect(again.isEmpty && handedOver?.sorted() == temporary.names("cur"), "\(handedOver ?? [])")
    }

    @Test func oldTemporaryFilesAreRemovedYoungOnesKept() throws {
        let temporary = TemporarySpool()
        temporary.drop("tmp", "abandoned", "{", modified: Date(timeIntervalSinceNow: -37 * 3600))
        temporary.drop("tmp", "in-progress", "{", modified: Date(timeIntervalSinceNow: -35 * 3600))
        temporary.drop("tmp", ".hidden", "", modified: Date(timeIntervalSinceNow: -100 * 3600))
        let removed = try temporary.open().cleanTemporaryFiles()
        #expect(removed == 1)
        #expect(temporary.names("tmp") == ["in-progress"])
        #expect(FileManager.default.fileExists(atPath: temporary.path + "/tmp/.hidden"))
    }

    /// A delivered operation retired to tmp/ (`Spool.retire`) whose worker died before removing it goes at the
    /// next housekeeping, however young; one whose worker lives, or whose worker is on another host, stays.
    @Test func deliveredFilesLeftByADeadWorkerGoAtOnce() throws {
        let temporary = TemporarySpool()
        let nowSeconds = Timestamp.nowSeconds()
        let state = RetryState(orderMicroseconds: 1, keyHash: 7)
        let me = ProcessIdentity.current
        // This host and pid, another start: the process that made the claim is gone.
        let dead = ProcessIdentity(host: me.host, pid: me.pid, startTicks: me.startTicks &+ 1)
        let elsewhere = ProcessIdentity(host: "elsewhere", pid: 1, startTicks: 1)
        let names = [("dead", dead), ("live", me), ("remote", elsewhere)].map { id, owner in
            QueueName(id: id, state: state, claim: Claim(owner: owner, since: nowSeconds)).fileName.escaped
        }
        for name in names { temporary.drop("tmp", name, "{}") }
        let removed = try temporary.open().cleanTemporaryFiles(nowSeconds: nowSeconds)
        #expect(removed == 1)
        #expect(temporary.names("tmp") == [names[1], names[2]])
    }
}

extension FileHandle {
    /// Reads one line, blocking until it arrives.
    func availableLine() -> String {
        var bytes: [UInt8] = []
        while true {
            let chunk = readData(ofLength: 1)
            if chunk.isEmpty || chunk.first == 0x0A { break }
            bytes.append(chunk.first!)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
