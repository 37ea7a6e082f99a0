import SpoolDocument
import SpoolSystem

/// What every queued document carries that the producer need not write: its Idempotency-Key, and the trace
/// the producer runs in.
extension EnqueueCommand {
    /// `document` with what the producer left out added: a random `idempotency_key`, so that every attempt
    /// of the write carries the same one; and the environment's trace (`trace`) when it names none itself.
    static func completed(_ document: JSON, trace: [(key: String, value: JSON)]) -> JSON {
        guard case var .object(members) = document else { return document }
        if document["idempotency_key"] == nil {
            members.append(("idempotency_key", .string(IdempotencyKey.random())))
        }
        if document["traceparent"] == nil, document["tracestate"] == nil { members += trace }
        return .object(members)
    }

    /// The trace of the environment, as OpenTelemetry's environment carrier gives it to a process
    /// (`TRACEPARENT`, `TRACESTATE`), as document fields; none when it has none. A value the W3C text does not
    /// allow is left out, as its propagators leave it (a bad `TRACESTATE` alone, the trace kept), and said
    /// once: the write is queued anyway.
    static func environmentTrace() -> [(key: String, value: JSON)] {
        guard let parent = Environment.value("TRACEPARENT") else { return [] }
        do {
            _ = try TraceContext(traceparent: parent, tracestate: nil)
        } catch {
            Program.printError("spool-enqueue: warning: TRACEPARENT left out: \(error)\n")
            return []
        }
        var fields: [(key: String, value: JSON)] = [("traceparent", .string(parent))]
        guard let state = Environment.value("TRACESTATE") else { return fields }
        do {
            _ = try TraceContext(traceparent: parent, tracestate: state)
            fields.append(("tracestate", .string(state)))
        } catch {
            Program.printError("spool-enqueue: warning: TRACESTATE left out: \(error)\n")
        }
        return fields
    }
}
