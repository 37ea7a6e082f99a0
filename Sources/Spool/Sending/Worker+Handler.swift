import Dispatch
import Glibc
import SpoolConfiguration
import SpoolDocument
import SpoolHandlers
import SpoolNames
import SpoolQueue
import SpoolSystem
import SpoolTransport

/// One attempt of a handler job: the program found in the admin's directory, run on a thread of its own
/// (it blocks), its exit status read as an outcome. Nothing here moves the job: `attempt` does.
extension Worker {
    /// Runs handler `name` for a claimed job and says how it went; nil when the system, not the handler,
    /// failed before it could run (the job then goes back unchanged, as a request would).
    package func runHandler(_ name: String, _ claimed: QueueEntry, _ operation: Operation) async -> Outcome? {
        let program: String
        do throws(HandlerError) {
            guard let directory = handlers else { throw .noDirectory(handler: name) }
            program = try directory.program(name)
        } catch {
            return cannotRun(claimed, error)
        }
        let process = HandlerProcess(
            program: program, arguments: [program] + operation.arguments,
            environment: handlerEnvironment(name, claimed, operation), input: operation.body ?? [],
            timeoutSeconds: options.timeoutSeconds)
        // Counted as a request is: once the program is known, not for a handler directory that fails.
        state.withLock { $0.summary.attempts += 1 }
        log.detail("running \(claimed.id): \(operation.summary)")
        let ran: Result<HandlerProcess.Result, Errno> = await withCheckedContinuation { continuation in
            // A queue of its own, which gets a thread of its own: a handler may block for its whole timeout,
            // and on Linux the global queues are the threads Swift's tasks run on.
            DispatchQueue(label: "spool.handler").async {
                continuation.resume(returning: Result { () throws(Errno) in try process.run() })
            }
        }
        switch ran {
        case let .success(result):
            return Outcome.classify(handler: name, result, timeout: options.timeoutSeconds)
        case let .failure(error): return cannotRun(claimed, .cannotStart(path: program, error))
        }
    }

    /// A job whose handler cannot be run waits, and so do the handler's other jobs for the rest of the run;
    /// nil when the cause is the system's (no descriptors, no memory, a failing disk): that is a fault.
    package func cannotRun(_ claimed: QueueEntry, _ error: HandlerError) -> Outcome? {
        if case let .unreadable(path, errno) = error, errno.faultClass != .content, errno.faultClass != .vanished,
            errno.faultClass != .permission
        {
            record(SystemCallError("look at the handler", path, errno))
            return nil
        }
        if case let .cannotStart(path, errno) = error, errno.faultClass == .resource {
            record(SystemCallError("start the handler", path, errno))
            return nil
        }
        log.warning("\(claimed.id): \(error); nothing was run")
        return .retry(token: "handler", reason: error.description, retryAfter: nil, takesOriginDown: true)
    }

    /// A clean environment: a fixed PATH and what the job is, nothing of spool-send's own.
    package func handlerEnvironment(_ name: String, _ claimed: QueueEntry, _ operation: Operation) -> [String] {
        let key =
            operation.idempotencyKey
            ?? IdempotencyKey.derived(
                id: claimed.id, orderMicroseconds: claimed.state.orderMicroseconds,
                method: operation.method, url: operation.url, body: operation.body)
        // Who dropped the job (its file's owner), for a handler on a shared spool that has rules of its own.
        let producer = operation.producer.map { ["SPOOL_DROPPED_BY=\($0)"] } ?? []
        // The job's trace, as OpenTelemetry's environment carrier: this run is a span of its own under it.
        let trace = (operation.trace?.headers() ?? []).map { "\($0.name.uppercased())=\($0.value)" }
        return [
            "PATH=/usr/local/bin:/usr/bin:/bin", "SPOOL_HANDLER=\(name)", "SPOOL_ID=\(claimed.id)",
            "SPOOL_ATTEMPT=\(claimed.state.attempts + 1)", "SPOOL_IDEMPOTENCY_KEY=\(key)", "SPOOL_KEY=\(operation.key)",
            "SPOOL_DIR=\(absoluteSpoolPath)"
        ] + producer + trace
    }
}
