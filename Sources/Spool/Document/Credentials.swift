import Glibc

/// Credential profiles: `AUTH_DIR/NAME` holds `Header-Name: value` lines added to requests at send time,
/// so that no secret is ever written into the spool.
public struct Credentials: Sendable {
    /// The auth directory.
    public let directory: String

    /// Profiles read from `directory`.
    public init(directory: String) { self.directory = directory }

    /// The auth directory named by `--auth-dir`, else `SPOOL_AUTH_DIR`. There is no default inside the spool:
    /// producers can write there. Without one, operations naming a profile are deferred with a warning.
    public static func defaultDirectory(option: String?) -> String? {
        option ?? Program.environment("SPOOL_AUTH_DIR")
    }

    /// The headers of profile `name`, or why they cannot be used.
    public func headers(profile name: String) throws(CredentialError) -> [(name: String, value: String)] {
        let path = "\(directory)/\(name)"
        let dir: FileDescriptor
        do { dir = try FileDescriptor.currentDirectory.open(FileName(directory), O_RDONLY | O_DIRECTORY) } catch {
            throw .unreadable(path: directory, error)
        }
        defer { dir.close() }
        let fd: FileDescriptor
        do { fd = try dir.open(FileName(name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK) } catch {
            throw .unreadable(path: path, error)
        }
        defer { fd.close() }
        let status: FileStatus
        do { status = try fd.status() } catch { throw .unreadable(path: path, error) }
        guard status.isRegularFile else { throw .notRegular(path: path) }
        guard status.permissions & 0o077 == 0 else { throw .tooOpen(path: path, mode: status.permissions) }
        let bytes: [UInt8]
        do { bytes = try fd.readAll(limit: 64 * 1024).bytes } catch { throw .unreadable(path: path, error) }
        var headers: [(name: String, value: String)] = []
        for (number, line) in String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let text = line.hasSuffix("\r") ? line.dropLast() : line
            if text.isEmpty || text.hasPrefix("#") { continue }
            guard let colon = text.firstIndex(of: ":") else { throw .badLine(path: path, line: number + 1) }
            let field = String(text[..<colon]), value = String(text[text.index(after: colon)...]).trimmingWhitespace()
            guard !field.isEmpty, field.utf8.allSatisfy(HTTPSyntax.isTokenCharacter), !value.utf8.contains(where: { $0 < 0x20 && $0 != 0x09 }) else {
                throw .badLine(path: path, line: number + 1)
            }
            headers.append((field, value))
        }
        return headers
    }
}

/// Why a credential profile cannot be used. Messages name the file, never its contents.
public enum CredentialError: Error, CustomStringConvertible {
    case noDirectory(profile: String)
    case unreadable(path: String, Errno)
    case notRegular(path: String)
    case tooOpen(path: String, mode: mode_t)
    case badLine(path: String, line: Int)

    public var description: String {
        switch self {
        case let .noDirectory(profile): "the operation uses auth profile \"\(profile)\" but no auth directory is set (--auth-dir or SPOOL_AUTH_DIR)"
        case let .unreadable(path, error): "cannot read auth profile \(path): \(error)"
        case let .notRegular(path): "auth profile \(path) is not a regular file"
        case let .tooOpen(path, mode): "auth profile \(path) is readable by group or others (mode \(String(mode, radix: 8))); chmod 600 it"
        case let .badLine(path, line): "auth profile \(path) line \(line) is not 'Header-Name: value'"
        }
    }
}
