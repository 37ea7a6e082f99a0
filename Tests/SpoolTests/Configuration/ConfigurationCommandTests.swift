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

/// A configuration that cannot be used stops spool-send before it moves anything; spool-ctl check says why.
@Suite struct ConfigurationCommandTests {
    @Test func aBadKeyStopsTheSenderWithExConfig() throws {
        let spool = TemporarySpool()
        try spool.enqueue(["PUT", "http://127.0.0.1:9/item"])
        let path = spool.directory + "/spool.conf"
        try "[default]\nmax-concurrency = 4\n\n[http://127.0.0.1:9]\nmax-speed = 10/s\n".write(
            toFile: path, atomically: true, encoding: .utf8)
        for arguments in [["--config", path], []] {
            let environment = arguments.isEmpty ? ["SPOOL_CONFIG": path] : [:]
            let result = try Command.run(
                "spool-send", ["--spool", spool.path, "--once"] + arguments, environment: environment)
            #expect(result.status == 78, "\(result.stderr)")
            #expect(
                result.stderr.contains("\(path) line 5: unknown key 'max-speed'")
                    && result.stderr.contains("nothing was sent"), "\(result.stderr)")
        }
        #expect(spool.names("new").count == 1 && spool.names("failed").isEmpty, "nothing moved")

        let check = try Command.run("spool-ctl", ["--spool", spool.path, "check", "--config", path])
        #expect(check.status == 78 && check.stdout.contains("line 5: unknown key 'max-speed'"), "\(check.stdout)")
        try "[default]\nmax-concurrency = 4\n\n[http://127.0.0.1:9]\nrate = 10/s\n".write(
            toFile: path, atomically: true, encoding: .utf8)
        let good = try Command.run("spool-ctl", ["--spool", spool.path, "check", "--config", path])
        #expect(good.status == 0 && good.stdout.contains("\(path): ok (1 origin section(s))"), "\(good.stdout)")
    }
}
