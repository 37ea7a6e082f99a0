import Glibc
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

/// Why `spool-enqueue` queued nothing. Each description names the input or path.
package enum EnqueueInputError: Error, CustomStringConvertible {
    case unreadableInput(path: String, Errno)
    case inputTooLarge(path: String, limit: Int)
    case notJSON(path: String, JSONError)
    case invalid(source: String?, OperationError)
    case spool(SpoolError)
    case enqueue(EnqueueError)

    /// The message `spool-enqueue` prints after `error:`, naming the input or path.
    package var description: String {
        switch self {
        case let .unreadableInput(path, error): "cannot read \(path): \(error)"
        case let .inputTooLarge(path, limit): "\(path) is larger than \(limit) bytes"
        case let .notJSON(path, error): "invalid operation in \(path): not valid JSON: \(error)"
        case let .invalid(source, error): "invalid operation\(source.map { " in \($0)" } ?? ""): \(error)"
        case let .spool(error): error.description
        case let .enqueue(error): error.description
        }
    }

    /// The sysexits code: 66 for an input that cannot be read, 65 for bad data, else the spool's.
    package var exitCode: Int32 {
        switch self {
        case .unreadableInput: ExitCode.noInput
        case .inputTooLarge, .notJSON, .invalid: ExitCode.dataError
        case let .spool(error): error.exitCode
        case let .enqueue(error): error.exitCode
        }
    }
}

extension Enqueued {
    /// What spool-enqueue prints: the id that carries the write on standard output (a script's `$(...)`
    /// gets it whether the write was queued or merged), and what folding did on standard error.
    package var report: (out: String, error: String?) {
        switch self {
        case let .queued(id): ("\(id)\n", nil)
        case let .folded(.merged(id)):
            ("\(id)\n", "spool-enqueue: merged into \(id), the write still waiting on the same key\n")
        case let .folded(.cancelled(ids)):
            ("", "spool-enqueue: cancelled \(ids.joined(separator: ", ")): the resource's create was never sent, "
                + "so neither it nor the writes behind it nor this DELETE will be; nothing queued\n")
        case let .queuedNotMerged(id, into):
            ("\(id)\n", "spool-enqueue: warning: not merged into \(into): this file system cannot exchange two "
                + "names atomically; queued as its own write \(id), sent after it\n")
        }
    }
}

extension EnqueueCommand {
    /// Builds the operation and enqueues it durably, or folds it into what waits on its key (a `merge`, a
    /// DELETE of a queued create); returns which. `group` is the drop group set aside at start, taken only
    /// to open the spool and place the operation.
    package func run(group: GroupPrivilege = .none) throws(EnqueueInputError) -> Enqueued {
        let operation: Operation
        // Every file the caller names is opened as the caller, before the drop group is taken.
        let (built, builtPayload) = try document()
        do { operation = try Operation(document: built) } catch { throw .invalid(source: jsonInput, error) }
        var source = builtPayload
        var opened: FileDescriptor?
        defer { opened?.close() }
        if let path = payload ?? curl.uploadFile {
            // curl's meter, on a terminal only, and not with -s.
            let progress = silent ? nil : ProgressMeter.forTerminal(verb: "copying")
            if path == "-" {
                source = .input(FileDescriptor(rawValue: 0), source: "standard input", progress: progress)
            } else {
                do throws(Errno) { opened = try FileDescriptor.currentDirectory.open(FileName(path), O_RDONLY) } catch {
                    throw .unreadableInput(path: path, error)
                }
                source = .input(opened!, source: path, progress: progress)
            }
        }
        return try group.whileRaised { () throws(EnqueueInputError) -> Enqueued in
            let spool = try openSpool(group: group)
            do throws(EnqueueError) {
                return try spool.enqueueFolding(
                    operation, maxSize: maxSize, limits: limits, payload: source, maxPayload: maxPayload)
            } catch {
                throw .enqueue(error)
            }
        }
    }

    /// Opens the spool to queue into, writable. Set-group-ID it makes nothing: a spool, or a folder in one, made
    /// with the drop group would be the caller's to fill with what the sender cannot move; its default is then
    /// the host's spool. Otherwise a missing spool is made, and said.
    func openSpool(group: GroupPrivilege) throws(EnqueueInputError) -> Spool {
        do throws(SpoolError) {
            let spool: Spool
            if group.saved != nil {
                spool = try Spool(path: Spool.defaultPath(option: self.spool, fallback: Spool.hostPath), create: false)
            } else {
                spool = try Spool(path: Spool.defaultPath(option: self.spool))
                if spool.wasCreated {
                    Program.printError(
                        "spool-enqueue: created the spool \(spool.path); spool-send sends from it with "
                            + "--spool \(spool.path)\n")
                }
            }
            try spool.requireWritable()
            return spool
        } catch {
            throw .spool(error)
        }
    }

    /// The document: read from `--document`, or built from the arguments; `completed` either way. A body too
    /// large for the document comes back as the payload to copy after it.
    func document() throws(EnqueueInputError) -> (JSON, PayloadSource?) {
        let document: JSON
        var payloadBytes: [UInt8]?
        if let jsonInput {
            do { document = try JSON.parse(try read(jsonInput)) } catch let error as EnqueueInputError {
                throw error
            } catch {
                throw .notJSON(path: jsonInput, error as! JSONError)
            }
        } else {
            var members = try members()
            if let bytes = try curlBody() {
                if bytes.count <= EnqueueCommand.inlineBodyLimit, let text = String(validating: bytes, as: UTF8.self) {
                    members.append(("body", .string(text)))
                } else if bytes.count <= EnqueueCommand.inlineBodyLimit {
                    members.append(("body_base64", .string(Base64.encode(bytes))))
                } else {
                    members.append(("payload", .bool(true)))
                    payloadBytes = bytes
                }
            }
            document = .object(members)
        }
        return (EnqueueCommand.completed(document, trace: EnqueueCommand.environmentTrace()),
                payloadBytes.map(PayloadSource.bytes))
    }

    /// The members of a document built from the arguments, in the order spool(5) lists them.
    func members() throws(EnqueueInputError) -> [(key: String, value: JSON)] {
        var members: [(key: String, value: JSON)]
        if let handler = fields["handler"] {
            members = [("handler", handler)]
            if !positionals.isEmpty { members.append(("args", .array(positionals.map(JSON.string)))) }
        } else {
            members = [("method", .string(requestMethod)), ("url", .string(requestURL))]
            if let allow = fields["allow_get"] { members.append(("allow_get", allow)) }
        }
        var headers = fields["handler"] == nil ? requestHeaders() : []
        // curl's -H traceparent is the write's trace: kept as its fields, sent with each attempt's own span.
        let trace = headers.filter { ["traceparent", "tracestate"].contains($0.key.lowercased()) }
        headers.removeAll { ["traceparent", "tracestate"].contains($0.key.lowercased()) }
        if !headers.isEmpty { members.append(("headers", .object(headers))) }
        var extra = fields
        if let body { members.append(("body", .string(body))) }
        if payload != nil || curl.uploadFile != nil { members.append(("payload", .bool(true))) }
        if let bodyFile {
            let bytes = try read(bodyFile)
            if let text = String(validating: bytes, as: UTF8.self) { members.append(("body", .string(text))) }
            else { extra["body_base64"] = .string(Base64.encode(bytes)) }
        }
        for field in ["body_base64", "idempotency_key", "if_match", "key"] {
            if let value = extra[field] { members.append((field, value)) }
        }
        if !dependsOn.isEmpty { members.append(("depends_on", .array(dependsOn))) }
        for field in ["coalesce", "merge", "creates", "not_before", "expires_at", "max_attempts", "priority", "auth"] {
            if let value = extra[field] { members.append((field, value)) }
        }
        return members + trace.map { ($0.key.lowercased(), $0.value) }
    }

    /// An input file (or standard input for `-`), at most `limit` bytes (`--max-size` unless given).
    func read(_ path: String, limit: Int? = nil) throws(EnqueueInputError) -> [UInt8] {
        let limit = limit ?? maxSize
        do {
            let read = try Program.readInput(path, limit: limit)
            if read.truncated { throw EnqueueInputError.inputTooLarge(path: path, limit: limit) }
            return read.bytes
        } catch let error as EnqueueInputError {
            throw error
        } catch {
            throw .unreadableInput(path: path, error as! Errno)
        }
    }
}
