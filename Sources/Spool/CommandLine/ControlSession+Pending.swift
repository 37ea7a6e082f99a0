import SpoolConfiguration
import SpoolControl
import SpoolDocument
import SpoolHandlers
import SpoolNames
import SpoolQueue
import SpoolReporting
import SpoolSending
import SpoolSystem
import SpoolTransport

/// `spool-ctl pending`: the writes still waiting (`new/` and `cur/`), in the order they will be sent, with
/// their bodies: what a program that shows a list must overlay on what it read from the server.
extension ControlSession {
    /// `spool-ctl pending`: the waiting writes (jobs left out) as a table or JSON lines, narrowed by `--key` or
    /// `--url-prefix`.
    package func pending() {
        let json = command.flags.contains("--json")
        var rows = [["ID", "STATE", "METHOD", "URL", "KEY", "CREATES", "BODY"]]
        ControlSession.forEachItem(spool, [.new, .cur]) { item in
            guard let operation = item.operation, operation.handler == nil else { return true }
            if let key = command.key, operation.key != key { return true }
            if let prefix = command.urlPrefix, !operation.url.hasPrefix(prefix) { return true }
            let body = ControlSession.bodyJSON(operation)
            if json {
                var members: [(key: String, value: JSON)] = [
                    ("id", .string(item.id)), ("state", .string(item.stateWord(nowSeconds: nowSeconds))),
                    ("method", .string(operation.method)), ("url", .string(operation.url)),
                    ("key", .string(operation.key)), ("creates", .bool(operation.creates)),
                ]
                members.append(contentsOf: body)
                Program.printOut(JSON.object(members).text + "\n")
            } else {
                let shown = body.first.map { $0.value.text } ?? "-"
                rows.append([
                    item.id, item.stateWord(nowSeconds: nowSeconds), operation.method, operation.url,
                    operation.key == operation.url ? "-" : operation.key, operation.creates ? "yes" : "-",
                    shown.count > 60 ? String(shown.prefix(57)) + "..." : shown,
                ])
            }
            return true
        }
        if !json, rows.count > 1 { Program.printOut(ControlSession.table(rows)) }
    }

    /// An operation's body as `pending --json` gives it: `body` as JSON when it is JSON, else as a string,
    /// `body_base64` when it is not text, `payload_bytes` for a payload (never its bytes); none without one.
    static func bodyJSON(_ operation: Operation) -> [(key: String, value: JSON)] {
        if let payload = operation.payload { return [("payload_bytes", .number(String(payload.length)))] }
        guard let bytes = operation.body else { return [] }
        if !bytes.isEmpty, let value = try? JSON.parse(bytes) { return [("body", value)] }
        if let text = String(validating: bytes, as: UTF8.self) { return [("body", .string(text))] }
        return [("body_base64", .string(Base64.encode(bytes)))]
    }
}
