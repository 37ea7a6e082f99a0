import Glibc
import SpoolDocument
import SpoolNames
import SpoolSystem
import SpoolTransport

/// `new/.ID.why`: the whole of what the last deferral of a waiting operation said (the TLS error's text, why
/// an auth profile was refused, a 503's status and the start of its body), so that `spool-ctl show` tells
/// it without the run's standard error. The name only holds a short token (`e=503`).
///
/// It is advice, not state: hidden, so no listing of `new/` takes it for an operation; not fsynced, as a
/// crash that loses it loses only the detail. It is written while the operation is claimed, before it
/// goes back to `new/`, and removed before the operation leaves the queue, so a crash never leaves one
/// without its operation.
extension Spool {
    /// The sidecar's name for operation `id`.
    package static func deferralName(of id: String) -> FileName { FileName("." + id + ".why") }

    /// Writes the reason of a deferral through `tmp/`, replacing the one before.
    package func keepDeferral(of id: String, _ reason: FilingReason, at time: Int64) throws(Errno) {
        var text = "id: \(id)\nat: \(Timestamp.formatRFC3339(time))\n"
        for (field, value) in reason.fields { text += "\(field): \(value.replacingControlCharacters())\n" }
        let temporary = FileName(UniqueName.next().id + ".why")
        let tmp = directory(.tmp)
        let fd = try tmp.open(temporary, O_WRONLY | O_CREAT | O_EXCL, mode: Spool.fileMode)
        defer { fd.close() }
        do {
            try fd.writeAll(Array(text.utf8))
            try tmp.replace(temporary, in: directory(.new), as: Spool.deferralName(of: id))
        } catch {
            try? tmp.unlink(temporary)
            throw error
        }
    }

    /// The fields of the last deferral of a waiting operation; empty when there is none. Opened without
    /// following a link or blocking on a FIFO: whoever writes to `new/` may have put anything there.
    package func deferral(of id: String) -> FilingReason {
        guard let fd = try? directory(.new).open(Spool.deferralName(of: id), O_RDONLY | O_NOFOLLOW | O_NONBLOCK) else {
            return FilingReason([(String, String)]())
        }
        defer { fd.close() }
        // Only the sender writes it, as the spool's owner: in a shared spool a producer could plant one.
        guard let status = try? fd.status(), status.isRegularFile, !users.isProducer(status.owner),
              let (bytes, _) = try? fd.readAll(limit: 16 * 1024)
        else {
            return FilingReason([(String, String)]())
        }
        return FilingReason(FilingReason.parse(bytes).filter { $0.0 != "id" })
    }

    /// Removes the sidecar, before its operation leaves the queue (done, filed, discarded). Only an
    /// operation tried before can have one.
    package func forgetDeferral(of id: String) {
        try? directory(.new).unlink(Spool.deferralName(of: id))
    }
}

extension FilingReason {
    /// This reason with the last deferral's answer as `last-reason`, `last-status`, `last-etag`, `last-body`,
    /// unless it holds an answer of its own.
    package func adding(lastDeferral: FilingReason) -> FilingReason {
        guard self["status"] == nil else { return self }
        var fields = self.fields
        for (name, value) in lastDeferral.fields where ["reason", "status", "etag", "body"].contains(name) {
            fields.append(("last-" + name, value))
        }
        return FilingReason(fields, body: body)
    }
}
