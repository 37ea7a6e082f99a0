import Foundation
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

/// Auth profiles: header lines and the TLS settings beside them, read strictly.
@Suite struct CredentialsTests {
    @Test func headersAndTLSFiles() throws {
        let spool = TemporarySpool()
        let directory = spool.directory + "/auth"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        let key = spool.directory + "/client.key"
        _ = FileManager.default.createFile(
            atPath: key, contents: Data("KEY".utf8), attributes: [.posixPermissions: 0o600])
        let text =
            "# billing\nAuthorization: Bearer t=1:2\ncacert = /etc/ca.pem\ncert = /etc/client.pem\nkey = \(key)\n"
        _ = FileManager.default.createFile(
            atPath: directory + "/p", contents: Data(text.utf8), attributes: [.posixPermissions: 0o600])
        let profile = try Credentials(directory: directory).profile("p")
        #expect(profile.headers.map(\.name) == ["Authorization"])
        #expect(profile.headers.first?.value == "Bearer t=1:2", "a header value may hold '=' and ':'")
        #expect(profile.tls == TLSFiles(caFile: "/etc/ca.pem", certificateFile: "/etc/client.pem", keyFile: key))
    }

    @Test func badSettingsAreRefusedByName() throws {
        let spool = TemporarySpool()
        let directory = spool.directory + "/auth"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        let cases = [
            "proxy = http://x\n": "unknown setting 'proxy'", "cacert = ca.pem\n": "'cacert' needs an absolute path",
            "key = /nonexistent/client.key\n": "/nonexistent/client.key"
        ]
        for (text, message) in cases {
            _ = FileManager.default.createFile(
                atPath: directory + "/p", contents: Data(text.utf8), attributes: [.posixPermissions: 0o600])
            do {
                _ = try Credentials(directory: directory).profile("p")
                Issue.record("accepted: \(text)")
            } catch {
                #expect(error.description.contains(message), "\(error.description)")
            }
        }
    }

    /// What a profile adds to a request is header lines and nothing more: a name that is not a token, or a
    /// value with a control character (a line break would start a header of its own), refuses the profile.
    @Test func aProfileCannotAddALineOfItsOwn() throws {
        let good = try Credentials.parse(Array("X-Key: a\tb\r\nAuthorization:  Bearer x \n".utf8), path: "auth/p")
        #expect(good.headers.map { "\($0.name)=\($0.value)" } == ["X-Key=a\tb", "Authorization=Bearer x"])
        for text in ["X-Key: a\rInjected: 1\n", "X-Key: a\u{0}b\n", "X-Key: a\u{7F}\n", "Bad Name: x\n", ": x\n",
                     "X-Key: a\u{1B}[2J\n"] {
            do {
                _ = try Credentials.parse(Array(text.utf8), path: "auth/p")
                Issue.record("accepted: \(Array(text.utf8))")
            } catch {
                #expect(error.description.contains("auth/p"), "\(error.description)")
            }
        }
    }
}
