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

/// `--warn-after` (Postfix's delay_warning_time): an operation that will not be delivered in time is
/// reported once, at the default level, with its request, age, attempts and last error.
@Suite struct DelayWarningTests {
    @Test func theDeferralWhoseIntervalHoldsTheThresholdWarns() {
        // Enqueued at 1000, warn after 100: due at once, then at 1030, 1090, 1210.
        #expect(!DelayWarning.due(enqueued: 1000, previousDue: 0, nextDue: 1030, warnAfterSeconds: 100))
        #expect(!DelayWarning.due(enqueued: 1000, previousDue: 1030, nextDue: 1090, warnAfterSeconds: 100))
        #expect(DelayWarning.due(enqueued: 1000, previousDue: 1090, nextDue: 1210, warnAfterSeconds: 100))
        #expect(!DelayWarning.due(enqueued: 1000, previousDue: 1210, nextDue: 1450, warnAfterSeconds: 100), "once")
        // Attempted long after it was due (cron stopped, a pause): the first deferral past the age warns.
        #expect(DelayWarning.due(enqueued: 1000, previousDue: 0, nextDue: 5000, warnAfterSeconds: 100))
        #expect(
            DelayWarning.due(enqueued: 1000, previousDue: 0, nextDue: 1100, warnAfterSeconds: 100),
            "due exactly at the age")
    }

    @Test func aLateOperationIsReportedOnceWithWhatHappened() throws {
        let spool = TemporarySpool()
        let server = try TestServer { _ in .respond(502, [:], "busy") }
        defer { server.stop() }
        let late = try spool.enqueue(["PUT", server.baseURL + "/late"])
        let first = try spool.send(["--warn-after", "2s"])
        #expect(
            first.stderr.contains(
                "spool-send: \(late) (PUT \(server.baseURL)/late): delayed: not delivered 2s after its enqueue at "),
            "\(first.stderr)")
        #expect(first.stderr.contains("1 attempt(s), last: HTTP 502; next at "), "\(first.stderr)")
        let again = try spool.send(["--warn-after", "2s", "--flush"])
        #expect(server.requests.count == 2)
        #expect(!again.stderr.contains("delayed"), "once: \(again.stderr)")

        // From spool.conf, and not before its time.
        let configuration = spool.directory + "/spool.conf"
        try "[default]\nwarn-after = 1h\n".write(toFile: configuration, atomically: true, encoding: .utf8)
        try spool.enqueue(["PUT", server.baseURL + "/early"])
        let early = try spool.send(["--config", configuration])
        #expect(!early.stderr.contains("delayed"), "\(early.stderr)")
        try "[default]\nwarn-after = 1s\n".write(toFile: configuration, atomically: true, encoding: .utf8)
        let fresh = try spool.enqueue(["PUT", server.baseURL + "/configured"])
        let configured = try spool.send(["--config", configuration])
        #expect(
            configured.stderr.contains("\(fresh) (PUT \(server.baseURL)/configured): delayed: not delivered 1s"),
            "\(configured.stderr)")
        #expect(try Command.run("spool-send", ["--spool", spool.path, "--warn-after", "0"]).status == 64)
    }
}
