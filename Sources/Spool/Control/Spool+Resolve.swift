import SpoolDocument
import SpoolQueue
import SpoolReporting

/// The decisions a person makes on a conflict, with the server's version beside it (`ConflictVersions`):
/// keep mine, keep theirs, or send an edited body. Shared by `spool-ctl resolve` and the triage page.
extension Spool {
    /// The versions of a conflict: the operation and its reason read with the server's body.
    package func versions(of item: QueueItem) -> ConflictVersions {
        ConflictVersions(operation: item.operation, reason: reason(of: item.fileName.string ?? item.id, in: item.folder,
                                                                    withBody: true))
    }

    /// Keep mine: the write goes back to `new/` with `If-Match` set to the server's version's ETag and a new
    /// Idempotency-Key (a new request, as `retry --if-match`), and `body` in place of its own when given.
    /// Refused when no ETag is known: overwriting blind would lose the server's change. Returns the ETag.
    @discardableResult
    package func keepMine(_ item: QueueItem, body: JSON? = nil) throws(ControlError) -> String {
        let etag = try Spool.overwritableETag(of: item)
        if body != nil, item.operation?.payload != nil { throw .payloadNotEditable(id: item.id) }
        _ = try retry(item, ifMatch: etag, body: body)
        return etag
    }

    /// The ETag that keeping mine writes over (from the conflict's reason, `ConflictVersions.serverETag`), or
    /// why there is none to use: not a conflict, no ETag known, or a weak one, which If-Match never matches
    /// (RFC 9110 section 13.1.1) and would only conflict again.
    package static func overwritableETag(of item: QueueItem) throws(ControlError) -> String {
        guard item.folder == .conflict else { throw .notConflict(id: item.id, folder: item.folder) }
        guard let etag = ConflictVersions.serverETag(item.reason) else { throw .noServerETag(id: item.id) }
        if etag.hasPrefix("W/") { throw .weakServerETag(id: item.id, etag: etag) }
        return etag
    }

    /// Keep theirs: my write is discarded, the server's version stands.
    package func keepTheirs(_ item: QueueItem) throws(ControlError) {
        guard item.folder == .conflict else { throw .notConflict(id: item.id, folder: item.folder) }
        try discard(item)
    }

    /// The body an edit gave, as the write will carry it. When my body was JSON (a JSON value, or JSON text in
    /// a string with its own Content-Type), the edit must be JSON too (refused otherwise: conflict markers
    /// left in it, for one) and is kept as my write kept its own; any other body is the text as it was saved.
    package static func editedBody(_ text: String, of item: QueueItem, mineIsJSON: Bool) throws(ControlError) -> JSON {
        guard mineIsJSON else { return .string(text) }
        let json: JSON
        do { json = try JSON.parse(text) } catch {
            throw .invalidEdit(id: item.id, why: "the edited body is not JSON (\(error)); remove the <<<<<<< ======= "
                + ">>>>>>> markers and keep one side of each")
        }
        return item.operation?.bodyIsJSON == true ? json : .string(json.text)
    }
}
