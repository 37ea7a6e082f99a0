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

/// spool-send's options that shape sending, parsed as the program parses them.
@Suite struct SendCommandTests {
    @Test func leaseMustOutlastTheTimeout() throws {
        let command = try SendCommand(parsing: ["--timeout", "10", "--lease", "12", "--poll", "2s"])
        #expect(command.options.leaseSeconds == 12)
        #expect(command.pollSeconds == 2)
        #expect(try SendCommand(parsing: []).options.leaseSeconds == 330, "default: --timeout + 5 minutes")
        #expect(throws: UsageError.self) { try SendCommand(parsing: ["--timeout", "30", "--lease", "30"]) }
        #expect(throws: UsageError.self) { try SendCommand(parsing: ["--poll", "0"]) }
    }

    @Test func transportOptionsAreCurls() throws {
        let command = try SendCommand(parsing: [
            "--cacert", "/etc/ca.pem", "--proxy", "http://proxy:3128", "--noproxy", "localhost,.corp",
            "--http1.1", "--concurrency", "16", "--timeout", "5"
        ])
        #expect(command.transport.caFile == "/etc/ca.pem")
        #expect(command.transport.proxy == "http://proxy:3128")
        #expect(command.transport.noProxy == "localhost,.corp")
        #expect(command.transport.version == .http1_1)
        #expect(command.transport.connectionsPerOrigin == 16)
        #expect(command.transport.timeoutSeconds == 5)
    }

    @Test func threadsAreOneByDefaultAndNeverMoreThanTheLanes() throws {
        #expect(try SendCommand(parsing: []).transport.threads == 1)
        #expect(try SendCommand(parsing: ["--threads", "2"]).transport.threads == 2)
        #expect(try SendCommand(parsing: ["--concurrency", "1"]).transport.threads == 1)
        #expect(try SendCommand(parsing: ["--threads", "3", "--concurrency", "8"]).transport.threads == 3)
        #expect(try SendCommand(parsing: ["--threads", "8", "--concurrency", "2"]).transport.threads == 2)
        for bad in ["0", "-1", "two", "257"] {
            #expect(throws: UsageError.self, "--threads \(bad)") { try SendCommand(parsing: ["--threads", bad]) }
        }
    }
}
