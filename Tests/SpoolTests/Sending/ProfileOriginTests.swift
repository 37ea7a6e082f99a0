import Foundation
import Testing
@testable import Spool
@testable import SpoolDocument
@testable import SpoolTestSupport

/// An auth profile goes only to the origins it names (spool(5), Auth profiles): a producer who names a profile
/// and a server of its own choosing gets the write filed, and the server nothing.
@Suite struct ProfileOriginTests {
    /// An auth directory in `spool` with profile `name` of `text`, mode 0600.
    func authDirectory(_ spool: TemporarySpool, _ profiles: [String: String]) throws -> String {
        let auth = spool.directory + "/auth"
        try FileManager.default.createDirectory(atPath: auth, withIntermediateDirectories: true)
        for (name, text) in profiles {
            _ = FileManager.default.createFile(
                atPath: auth + "/" + name, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600])
        }
        return auth
    }

    @Test func aProfileIsNotSentToAnOriginItDoesNotName() throws {
        let spool = TemporarySpool()
        let api = try TestServer { _ in .respond(204, [:], "") }
        defer { api.stop() }
        let thief = try TestServer { _ in .respond(204, [:], "") }
        defer { thief.stop() }
        let auth = try authDirectory(spool, ["billing": "origin = \(api.baseURL)\nAuthorization: Bearer s3cret\n"])
        let good = try spool.enqueue(["PUT", api.baseURL + "/invoice", "--auth", "billing", "--body", "a"])
        let stolen = try spool.enqueue(["POST", thief.baseURL + "/steal", "--auth", "billing", "--body", "x"])
        try spool.send(["--auth-dir", auth])
        #expect(thief.requests.isEmpty, "the second server received \(thief.requests.map(\.path))")
        #expect(api.requests.map(\.path) == ["/invoice"])
        #expect(api.requests.first?.header("Authorization") == "Bearer s3cret")
        #expect(!spool.operations("new").contains(good))
        #expect(spool.operations("failed") == [stolen])
        let why = spool.read("failed", stolen + ".why")
        #expect(why.contains("error: auth"), "\(why)")
        #expect(why.contains("auth profile \"billing\" may be sent to \(api.baseURL) only, and this write goes to "
            + "\(thief.baseURL); nothing was sent"), "\(why)")
        #expect(!why.contains("s3cret"))
    }

    /// The conflict's read of the server's version is a request like any: only to the profile's origins. A
    /// profile naming two origins serves both.
    @Test func aProfileMayNameSeveralOrigins() throws {
        let spool = TemporarySpool()
        let first = try TestServer { _ in .respond(204, [:], "") }
        defer { first.stop() }
        let second = try TestServer { _ in .respond(204, [:], "") }
        defer { second.stop() }
        let auth = try authDirectory(
            spool, ["both": "origin = \(first.baseURL)/\norigin = \(second.baseURL)\nX-Key: k\n"])
        try spool.enqueue(["PUT", first.baseURL + "/a", "--auth", "both"])
        try spool.enqueue(["PUT", second.baseURL + "/b", "--auth", "both"])
        try spool.send(["--auth-dir", auth])
        #expect(first.requests.map { $0.header("X-Key") } == ["k"])
        #expect(second.requests.map { $0.header("X-Key") } == ["k"])
    }

    /// A profile bound to nothing stops spool-send before it moves anything, and `spool-ctl check` names it,
    /// each with the line to add.
    @Test func aProfileWithoutAnOriginIsRefusedAtStartAndByCheck() throws {
        let spool = TemporarySpool()
        let auth = try authDirectory(spool, ["old": "Authorization: Bearer x\n"])
        let id = try spool.enqueue(["PUT", "http://127.0.0.1:9/a", "--auth", "old"])
        let send = try Command.run("spool-send", ["--spool", spool.path, "--once", "--auth-dir", auth])
        #expect(send.status == 78, "\(send.stderr)")
        #expect(send.stderr.contains("auth profile \(auth)/old names no origin its credentials may be sent to; add a "
            + "line such as 'origin = https://api.example.com'; nothing was sent"), "\(send.stderr)")
        #expect(spool.operations("new").count == 1 && spool.names("new").first?.hasPrefix(id) == true)
        let check = try Command.run("spool-ctl", ["--spool", spool.path, "check", "--auth-dir", auth])
        #expect(check.status == 78)
        #expect(check.stdout.contains("\(auth)/old") && check.stdout.contains("add a line such as 'origin = "),
                "\(check.stdout)")
    }

    @Test func originLinesAreOriginsOnly() throws {
        let profile = try Credentials.parse(
            Array("origin = HTTPS://API.example.com:443/\norigin = http://127.0.0.1:8080\n".utf8), path: "auth/p")
        #expect(profile.origins == ["https://api.example.com", "http://127.0.0.1:8080"])
        for value in ["https://api.example.com/v1", "https://user@api.example.com", "ftp://h", "api.example.com",
                      "https://h?x", "https://h#y", ""] {
            #expect(throws: CredentialError.self, "accepted origin = \(value)") {
                try Credentials.parse(Array("origin = \(value)\n".utf8), path: "auth/p")
            }
        }
    }
}
