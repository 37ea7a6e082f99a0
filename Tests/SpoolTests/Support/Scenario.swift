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

extension TemporarySpool {
    /// Queues an operation with spool-enqueue and returns its id.
    @discardableResult
    func enqueue(_ arguments: [String]) throws -> String {
        let result = try Command.run("spool-enqueue", ["--spool", path] + arguments)
        #expect(result.status == 0, "spool-enqueue \(arguments): \(result.stderr)")
        return result.stdout.trimmingCharacters(in: .newlines)
    }

    /// Runs spool-send on this spool.
    @discardableResult
    func send(_ arguments: [String] = [], environment: [String: String] = [:]) throws -> CommandResult {
        let result = try Command.run("spool-send", ["--spool", path, "--once"] + arguments, environment: environment)
        #expect(result.status == 0, "spool-send \(arguments): \(result.stderr)")
        return result
    }

    /// The parsed names in `new/`, in enqueue order.
    func waiting() -> [QueueName] {
        names("new").compactMap { QueueName(FileName($0)) }.sorted {
            ($0.state?.orderMicroseconds ?? 0, $0.id) < ($1.state?.orderMicroseconds ?? 0, $1.id)
        }
    }
}

extension Spool {
    /// Queues a PUT of `url` with no body through the library, as a worker finds it; returns its id.
    func enqueuePut(_ url: String) throws -> String {
        try enqueue(try Operation(document: .object([("method", .string("PUT")), ("url", .string(url))])))
    }
}
