import Foundation
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

/// A CA file, certificate or key that cannot be used is found before anything is sent (exit 78 naming the
/// file), and by `spool-ctl check`, instead of a TLS error on every https operation.
@Suite(.enabled(if: TestCertificates.shared != nil, "needs openssl for the test certificates (.ci/run installs it)"))
struct TLSFileCheckTests {
    let certificates = TestCertificates.shared!

    @Test func aBadCAFileStopsTheSenderBeforeAnAttempt() throws {
        let spool = TemporarySpool()
        let id = try spool.enqueue(["PUT", "https://127.0.0.1:9/x"])
        let notPEM = spool.directory + "/notes.txt"
        try "not a certificate\n".write(toFile: notPEM, atomically: true, encoding: .utf8)
        let configuration = spool.directory + "/spool.conf"
        try "[https://127.0.0.1:9]\ncacert = \(notPEM)\n".write(
            toFile: configuration, atomically: true, encoding: .utf8)
        let cases: [([String], [String: String], String)] = [
            (["--cacert", spool.directory + "/missing.pem"], [:], spool.directory + "/missing.pem"),
            ([], ["SPOOL_CA_FILE": notPEM], notPEM),
            (["--config", configuration], [:], notPEM),
        ]
        for (arguments, environment, named) in cases {
            let result = try Command.run(
                "spool-send", ["--spool", spool.path, "--once"] + arguments, environment: environment)
            #expect(result.status == 78, "\(arguments) \(environment): \(result.stderr)")
            #expect(
                result.stderr.contains("spool-send: error: the CA file \(named)")
                    && result.stderr.contains("nothing was sent"), "\(result.stderr)")
        }
        #expect(spool.waiting().map(\.id) == [id])
        #expect(spool.waiting().first?.state?.attempts == 0, "no attempt was spent")
        let check = try Command.run("spool-ctl", ["--spool", spool.path, "check", "--config", configuration])
        #expect(check.status == 78, "\(check.stdout)")
        #expect(
            check.stdout.contains(
                "\(notPEM): the CA file \(notPEM) (named by [https://127.0.0.1:9] in \(configuration)) cannot be used: "
                    + "it holds no PEM certificate"
            ), "\(check.stdout)")
        let good = try Command.run(
            "spool-send",
            ["--spool", spool.path, "--once", "--cacert", certificates.caFile, "--allow-origin", "http://127.0.0.1:1"])
        #expect(good.status == 0, "a usable CA file starts: \(good.stderr)")
    }

    @Test func anAuthProfilesFilesAreCheckedAtStartAndByCheck() throws {
        let spool = TemporarySpool()
        let auth = spool.directory + "/auth"
        try FileManager.default.createDirectory(atPath: auth, withIntermediateDirectories: false)
        let good =
            "origin = https://127.0.0.1:9\ncacert = \(certificates.caFile)\ncert = \(certificates.clientCertificate)\nkey = "
                + "\(certificates.clientKey)\n"
        _ = FileManager.default.createFile(
            atPath: auth + "/good", contents: Data(good.utf8), attributes: [.posixPermissions: 0o600])
        try spool.enqueue(["PUT", "https://127.0.0.1:9/x", "--auth", "good"])
        let healthy = try Command.run("spool-ctl", ["--spool", spool.path, "check", "--auth-dir", auth])
        #expect(healthy.status == 0 && healthy.stdout.contains("\(auth): ok (1 auth profile(s))"), "\(healthy.stdout)")

        let wrongCertificate = good.replacingOccurrences(
            of: "cert = \(certificates.clientCertificate)", with: "cert = \(certificates.clientKey)")
        _ = FileManager.default.createFile(
            atPath: auth + "/mixed-up", contents: Data(wrongCertificate.utf8), attributes: [.posixPermissions: 0o600])
        _ = FileManager.default.createFile(
            atPath: auth + "/open", contents: Data("X-Token: t\n".utf8), attributes: [.posixPermissions: 0o644])
        let start = try Command.run("spool-send", ["--spool", spool.path, "--once", "--auth-dir", auth])
        #expect(start.status == 78, "\(start.stderr)")
        #expect(
            start.stderr.contains(
                "the client certificate \(certificates.clientKey) (named by auth profile \(auth)/mixed-up) cannot be "
                    + "used"
            ), "\(start.stderr)")
        #expect(spool.waiting().first?.state?.attempts == 0)

        let check = try Command.run(
            "spool-ctl", ["--spool", spool.path, "check"], environment: ["SPOOL_AUTH_DIR": auth])
        #expect(check.status == 78)
        #expect(check.stdout.contains("auth profile \(auth)/mixed-up"), "\(check.stdout)")
        #expect(
            check.stdout.contains(
                "\(auth)/open: \(auth)/open (an auth profile or its key) is readable by group or others"),
            "\(check.stdout)")
    }

    @Test func checkReadsTheHandlerDirectory() throws {
        let spool = TemporarySpool()
        let handlers = spool.directory + "/handlers"
        try FileManager.default.createDirectory(
            atPath: handlers, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
        _ = FileManager.default.createFile(
            atPath: handlers + "/mail", contents: Data("#!/bin/sh\n".utf8), attributes: [.posixPermissions: 0o755])
        _ = FileManager.default.createFile(
            atPath: handlers + "/shared", contents: Data("#!/bin/sh\n".utf8), attributes: [.posixPermissions: 0o777])
        chmod(handlers + "/shared", 0o777)
        let check = try Command.run("spool-ctl", ["--spool", spool.path, "check", "--handler-dir", handlers])
        #expect(check.status == 78, "\(check.stdout)")
        #expect(
            check.stdout.contains("\(handlers)/shared:") && !check.stdout.contains("\(handlers)/mail:"),
            "\(check.stdout)")
        try FileManager.default.removeItem(atPath: handlers + "/shared")
        let clean = try Command.run("spool-ctl", ["--spool", spool.path, "check", "--handler-dir", handlers])
        #expect(clean.status == 0 && clean.stdout.contains("\(handlers): ok (handler directory)"), "\(clean.stdout)")
    }
}
