import Glibc
import Testing
@testable import SpoolSystem
@testable import SpoolNames

/// Who holds a claim: this host's safe name, a pid's start time from /proc, liveness, and a claim's text.
@Suite struct ProcessIdentityTests {
    static let claim = Claim(owner: ProcessIdentity(host: "h.example", pid: 4242, startTicks: 99),
                             since: 1_764_412_345)

    @Test func theHostNameIsSafeForFileNames() throws {
        let host = ProcessIdentity.hostName()
        #expect(!host.isEmpty && host.count <= 32, "\(host)")
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._")
        #expect(host.allSatisfy(allowed.contains), "\(host)")
        #expect(ProcessIdentity.current.host == host)
        // The kernel's own name, where it is plain, is taken as it is.
        var buffer = [CChar](repeating: 0, count: 256)
        try #require(gethostname(&buffer, buffer.count - 1) == 0)
        let raw = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if !raw.isEmpty, raw.count <= 32, raw.allSatisfy(allowed.contains), !raw.contains("_") {
            #expect(host == raw)
        }
    }

    @Test func aLongHostNameEndsInAHashOfTheWhole() {
        let stem = "build-runner-west-europe-pool-"
        let (a, b) = (ProcessIdentity.safeHostName(stem + "0001"), ProcessIdentity.safeHostName(stem + "0002"))
        #expect(a.count == 32 && b.count == 32, "\(a) \(b)")
        #expect(a != b, "two hosts alike but for their ends keep apart")
        #expect(a.hasPrefix(String(stem.prefix(23)) + "-") && b.hasPrefix(String(stem.prefix(23)) + "-"))
        #expect(a == ProcessIdentity.safeHostName(stem + "0001"), "the same on every run")
        #expect(ProcessIdentity.safeHostName(String(repeating: "h", count: 32)) == String(repeating: "h", count: 32))
        #expect(ProcessIdentity.safeHostName("a b/c") == "a_b_c" && ProcessIdentity.safeHostName("") == "localhost")
    }

    @Test func startTicksComeFromProc() throws {
        let mine = try #require(ProcessIdentity.startTicks(of: getpid()))
        #expect(ProcessIdentity.current.startTicks == mine)
        #expect(ProcessIdentity.current.pid == getpid())
        #expect(ProcessIdentity.startTicks(of: getpid()) == mine, "the same on every read")
        if let first = ProcessIdentity.startTicks(of: 1) { #expect(first <= mine, "pid 1 started first") }
        #expect(ProcessIdentity.startTicks(of: Int32.max) == nil, "no such process")
        #expect(ProcessIdentity.startTicks(of: -1) == nil)
    }

    @Test func livenessIsKnownOnThisHostOnly() {
        let current = ProcessIdentity.current
        #expect(current.isAlive == true)
        let reused = ProcessIdentity(host: current.host, pid: current.pid, startTicks: current.startTicks + 1)
        #expect(reused.isAlive == false, "a reused pid is not the owner")
        #expect(ProcessIdentity(host: current.host, pid: Int32.max, startTicks: 1).isAlive == false)
        #expect(ProcessIdentity(host: current.host + "-other", pid: current.pid, startTicks: 0).isAlive == nil)
        // A maker that could not read its own start time: not known, so the lease decides.
        #expect(ProcessIdentity(host: current.host, pid: current.pid, startTicks: 0).isAlive == nil)
        #expect(ProcessIdentity(host: current.host, pid: 0, startTicks: 1).isAlive == false)
    }

    @Test func claimsRoundTripThroughTheirText() {
        #expect(Self.claim.text == "h.example,4242,99,1764412345")
        #expect(Claim(text: Substring(Self.claim.text)) == Self.claim)
        let parsed = Claim(text: "host-1,1,18446744073709551615,0")
        #expect(parsed?.owner.startTicks == UInt64.max && parsed?.since == 0 && parsed?.owner.host == "host-1")
    }

    @Test func malformedClaimTextsAreRefused() {
        for text in ["", "h", "h,1,2", "h,1,2,3,4", ",1,2,3", "h,x,2,3", "h,1,-2,3", "h,99999999999,2,3", "h,1,2,",
                     "h,1,2,3x", "h,1,,3", "h,1.5,2,3"] {
            #expect(Claim(text: Substring(text)) == nil, "\(text)")
        }
    }

    @Test func theSuffixIsTheAtSignAndTheTextForEachClaim() {
        let other = Claim(owner: Self.claim.owner, since: Self.claim.since + 1)
        // Alternating claims must not be served the other's remembered suffix.
        for _ in 0..<3 {
            #expect(Self.claim.suffix == Array("@h.example,4242,99,1764412345".utf8))
            #expect(other.suffix == Array("@h.example,4242,99,1764412346".utf8))
        }
    }
}
