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

/// https against Debian's nginx with a private CA: HTTP/2 on one connection, the CA given by option, by
/// environment or by auth profile, mutual TLS, and a certificate that cannot be verified.
@Suite(
    .enabled(
        if: Nginx.binary != nil && TestCertificates.shared != nil, "needs nginx and openssl (.ci/run installs them)"))
struct TLSTests {
    let certificates = TestCertificates.shared!

    @Test func sixteenLanesShareOneHTTP2Connection() throws {
        let nginx = try Nginx(tls: true, http2: true, locations: "location / { return 204; }")
        let spool = TemporarySpool()
        for i in 0..<64 { try spool.enqueue(["PUT", "https://127.0.0.1:\(nginx.port)/k\(i % 16)", "--body", "\(i)"]) }
        let arguments = ["--concurrency", "16", "--threads", "1", "--cacert", certificates.caFile]
        let (_, log) = try sendAll(spool, nginx, arguments)
        // The first run's own record: one connection carried every stream it sent.
        #expect(Set(log.map(\.httpProtocol)) == ["HTTP/2.0"])
        #expect(Set(log.map(\.connection)).count == 1, "connections: \(Set(log.map(\.connection)))")
        #expect(spool.names("new").isEmpty && spool.names("cur").isEmpty, "left: \(spool.names("new"))")
        let all = nginx.accessLog
        #expect(all.count == 64)
        #expect(Set(all.map(\.idempotencyKey)).count == 64)
    }

    /// Runs spool-send with `-v`, and returns what it said and nginx's record of that run. Under
    /// AddressSanitizer and the whole suite's load, a write or two were twice deferred by a transient failure,
    /// which is retried later as it must be: print the reason its name carries (`e=`) and what spool-send said,
    /// then send them with `--flush`.
    func sendAll(
        _ spool: TemporarySpool, _ nginx: Nginx, _ arguments: [String]
    ) throws -> (sent: CommandResult, log: [Nginx.LogEntry]) {
        let sent = try spool.send(arguments + ["-v"])
        let log = nginx.accessLog
        if !spool.names("new").isEmpty {
            print("\(#function): deferred \(spool.names("new")); spool-send said: \(sent.stderr)")
            try spool.send(arguments + ["--flush"])
        }
        return (sent, log)
    }

    /// Each sending thread keeps its own connection: two threads, two HTTP/2 connections, each carrying many
    /// streams, and every write of every key sent once.
    @Test func eachThreadKeepsItsOwnHTTP2Connection() throws {
        let nginx = try Nginx(tls: true, http2: true, locations: "location / { return 204; }")
        let spool = TemporarySpool()
        for i in 0..<64 {
            try spool.enqueue(["PUT", "https://127.0.0.1:\(nginx.port)/k\(i % 16)", "--body", "\(i)"])
        }
        let arguments = ["--concurrency", "16", "--threads", "2", "--cacert", certificates.caFile]
        let (sent, log) = try sendAll(spool, nginx, arguments)
        // The first run's own record: two connections, one per thread, each with several streams.
        #expect(Set(log.map(\.httpProtocol)) == ["HTTP/2.0"])
        let connections = Dictionary(grouping: log, by: \.connection)
        #expect(connections.count == 2, "connections: \(connections.mapValues(\.count))")
        #expect(connections.values.allSatisfy { $0.count > 1 }, "streams: \(connections.mapValues(\.count))")
        #expect(
            spool.names("new").isEmpty && spool.names("cur").isEmpty,
            "left: \(spool.names("new")) \(spool.names("cur")); spool-send said: \(sent.stderr)")
        // Every write received, each once: one idempotency key each, all four of every key.
        let all = nginx.accessLog
        #expect(Set(all.map(\.idempotencyKey)).count == 64)
        for key in 0..<16 {
            let keys = Set(all.filter { $0.path == "/k\(key)" }.map(\.idempotencyKey))
            #expect(keys.count == 4, "/k\(key): \(keys.count) writes")
        }
    }

    @Test func http1OptionAndCAFromTheEnvironment() throws {
        let nginx = try Nginx(tls: true, http2: true, locations: "location / { return 204; }")
        let spool = TemporarySpool()
        for i in 0..<4 { try spool.enqueue(["PUT", "https://127.0.0.1:\(nginx.port)/k\(i)"]) }
        try spool.send(["--http1.1"], environment: ["SPOOL_CA_FILE": certificates.caFile])
        #expect(spool.names("new").isEmpty)
        #expect(Set(nginx.accessLog.map(\.httpProtocol)) == ["HTTP/1.1"])
    }

    @Test func anOriginsSectionGivesItsCAAndHTTPVersion() throws {
        let nginx = try Nginx(tls: true, http2: true, locations: "location / { return 204; }")
        let spool = TemporarySpool()
        let origin = "https://127.0.0.1:\(nginx.port)"
        let configuration = spool.directory + "/spool.conf"
        try "[default]\nmax-concurrency = 8\n\n[\(origin)]\ncacert = \(certificates.caFile)\nhttp-version = 1.1\n"
            .write(toFile: configuration, atomically: true, encoding: .utf8)
        for i in 0..<4 { try spool.enqueue(["PUT", "\(origin)/k\(i)"]) }
        try spool.send(["--config", configuration])
        #expect(spool.names("new").isEmpty, "trusted through the origin's section: \(spool.names("new"))")
        #expect(nginx.accessLog.count == 4 && Set(nginx.accessLog.map(\.httpProtocol)) == ["HTTP/1.1"])
        try spool.enqueue(["PUT", "\(origin)/without"])
        try spool.send([])
        #expect(
            spool.waiting().compactMap { $0.state?.lastError } == ["tls"],
            "without the file, the system's CAs do not know the test CA")
    }

    @Test func unverifiableCertificateIsDeferredAsTLSAndNeverSent() throws {
        let nginx = try Nginx(tls: true, locations: "location / { return 204; }")
        let spool = TemporarySpool()
        try spool.enqueue(["PUT", "https://127.0.0.1:\(nginx.port)/a", "--body", "x"])
        try spool.enqueue(["PUT", "https://127.0.0.1:\(nginx.port)/b", "--body", "y"])
        let result = try spool.send(["--concurrency", "1"])
        #expect(nginx.accessLog.isEmpty)
        #expect(spool.waiting().compactMap { $0.state?.lastError } == ["tls"], "the origin is stopped after the first")
        #expect(
            result.stderr.contains("TLS error with https://127.0.0.1:\(nginx.port)"),
            "logged without -v: \(result.stderr)")
        #expect(result.stderr.contains("certificate"), "names the problem: \(result.stderr)")
        // The TLS error's text is kept with the operation, for spool-ctl show without the run's stderr.
        let deferred = try #require(spool.waiting().first { $0.state?.lastError == "tls" })
        let show = try Command.run("spool-ctl", ["--spool", spool.path, "show", deferred.id])
        #expect(
            show.stdout.contains("why last-error:")
                && show.lines.contains { $0.hasPrefix("why reason:") && $0.contains("certificate") }, "\(show.stdout)")
    }

    @Test func mutualTLSFromAnAuthProfile() throws {
        let nginx = try Nginx(tls: true, clientCertificates: true, locations: "location / { return 204; }")
        let spool = TemporarySpool()
        let auth = spool.directory + "/auth"
        try FileManager.default.createDirectory(atPath: auth, withIntermediateDirectories: false)
        let profile =
            "# mutual TLS\norigin = https://127.0.0.1:\(nginx.port)\ncacert = \(certificates.caFile)\ncert = \(certificates.clientCertificate)\nkey = "
                + "\(certificates.clientKey)\nX-Team: ops\n"
        _ = FileManager.default.createFile(
            atPath: auth + "/mtls", contents: Data(profile.utf8), attributes: [.posixPermissions: 0o600])
        let openKey = spool.directory + "/open.key"
        try FileManager.default.copyItem(atPath: certificates.clientKey, toPath: openKey)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: openKey)
        let careless = profile.replacingOccurrences(of: certificates.clientKey, with: openKey)
        _ = FileManager.default.createFile(
            atPath: auth + "/careless", contents: Data(careless.utf8), attributes: [.posixPermissions: 0o600])
        try spool.enqueue(["PUT", "https://127.0.0.1:\(nginx.port)/with-cert", "--auth", "mtls"])
        try spool.enqueue(["PUT", "https://127.0.0.1:\(nginx.port)/open-key", "--auth", "careless"])
        let result = try spool.send(["--auth-dir", auth])
        #expect(nginx.accessLog.map(\.path) == ["/with-cert"])
        #expect(nginx.accessLog.first?.status == "204")
        #expect(result.stderr.contains("open.key (an auth profile or its key) is readable by group or others"))
        #expect(spool.waiting().compactMap { $0.state?.lastError } == ["auth"])
    }
}
