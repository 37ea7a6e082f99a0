import Glibc
import SpoolNames
import SpoolSystem
import SpoolTransport

/// Credential profiles: `AUTH_DIR/NAME` holds `Header-Name: value` lines added to requests at send time,
/// `cacert = FILE`, `cert = FILE`, `key = FILE` lines naming TLS files (curl's option names), so that no
/// secret is ever written into the spool, and `origin = URL` lines naming the only origins its secrets may be
/// sent to, as curl's `.netrc` binds a password to its `machine`: whoever can drop a write names its URL.
package struct Credentials: Sendable {
    /// The auth directory.
    package let directory: String

    /// Profiles read from `directory`.
    package init(directory: String) { self.directory = directory }

    /// The auth directory named by `--auth-dir`, else `SPOOL_AUTH_DIR`. There is no default inside the spool:
    /// producers can write there. Without one, operations naming a profile are deferred with a warning.
    package static func defaultDirectory(option: String?) -> String? {
        option ?? Environment.value("SPOOL_AUTH_DIR")
    }

    /// What an auth profile adds to a request.
    package struct Profile: Sendable {
        /// Headers, in the profile's order.
        package var headers: [(name: String, value: String)] = []
        /// TLS files for the request.
        package var tls = TLSFiles()
        /// The origins (`Operation.origin(of:)`'s form) the profile may be sent to; none: it is sent nowhere.
        package var origins: [String] = []
        /// An empty profile: what an operation without `auth` gets.
        package init() {}
    }

    /// Profile `name`, read now, for a request to `origin`; throws when it cannot be used, names no origin, or
    /// does not name this one.
    package func profile(_ name: String, for origin: String) throws(CredentialError) -> Profile {
        let profile = try profile(name)
        let path = "\(directory)/\(name)"
        guard !profile.origins.isEmpty else { throw .noOrigin(path: path, example: origin) }
        guard profile.origins.contains(origin) else {
            throw .wrongOrigin(profile: name, path: path, origin: origin, allowed: profile.origins)
        }
        return profile
    }

    /// Profile `name`, read now, or why it cannot be used.
    package func profile(_ name: String) throws(CredentialError) -> Profile {
        let path = "\(directory)/\(name)"
        let dir: FileDescriptor
        do { dir = try FileDescriptor.currentDirectory.open(FileName(directory), O_RDONLY | O_DIRECTORY) } catch {
            throw .unreadable(path: directory, error)
        }
        defer { dir.close() }
        let fd = try Credentials.openPrivate(FileName(name), in: dir, path: path)
        defer { fd.close() }
        let bytes: [UInt8]
        do { bytes = try fd.readAll(limit: 64 * 1024).bytes } catch { throw .unreadable(path: path, error) }
        let profile = try Credentials.parse(bytes, path: path)
        if let key = profile.tls.keyFile { try Credentials.checkKeyFile(key) }
        return profile
    }

    /// A profile's text read: `Header-Name: value` lines and TLS settings; comments and blank lines skipped.
    /// Reads nothing else: the key file it names is checked by `profile(_:)`.
    /// A header whose name is not a token or whose value holds a control character is refused, so that a
    /// profile can never add a line break, and with it a header of its own, to a request.
    package static func parse(_ bytes: [UInt8], path: String) throws(CredentialError) -> Profile {
        var profile = Profile()
        // Split as bytes: in Swift "\r\n" is one Character, which a split at "\n" would not cut.
        for (number, bytes) in bytes.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
            let line = String(decoding: bytes.last == 0x0D ? bytes.dropLast() : bytes, as: UTF8.self)
            let text = line[...]
            if text.isEmpty || text.hasPrefix("#") { continue }
            if let setting = try Credentials.setting(text, path: path, line: number + 1) {
                switch setting.name {
                case "origin": profile.origins.append(setting.value)
                case "cacert": profile.tls.caFile = setting.value
                case "cert": profile.tls.certificateFile = setting.value
                default: profile.tls.keyFile = setting.value
                }
                continue
            }
            guard let colon = text.firstIndex(of: ":") else { throw .badLine(path: path, line: number + 1) }
            let field = String(text[..<colon]), value = String(text[text.index(after: colon)...]).trimmingWhitespace()
            guard !field.isEmpty, field.utf8.allSatisfy(HTTPSyntax.isTokenCharacter),
                !value.utf8.contains(where: { $0 < 0x20 && $0 != 0x09 || $0 == 0x7F })
            else {
                throw .badLine(path: path, line: number + 1)
            }
            profile.headers.append((field, value))
        }
        return profile
    }

    /// The names of the profiles in the directory (its entries but hidden ones), sorted; empty when it
    /// cannot be listed.
    package func profileNames() -> [String] {
        guard let dir = try? FileDescriptor.currentDirectory.open(FileName(directory), O_RDONLY | O_DIRECTORY) else {
            return []
        }
        defer { dir.close() }
        return ((try? dir.entries()) ?? []).filter { !$0.isHidden }.compactMap(\.string).sorted()
    }

    /// Every profile that can be read, with its name.
    package func readableProfiles() -> [(name: String, profile: Profile)] {
        profileNames().compactMap { name in (try? profile(name)).map { (name, $0) } }
    }

    /// A `name = value` line, told from a header line by its `=` before any `:` (`=` is not a token
    /// character, so no header name holds one).
    package static func setting(_ text: Substring, path: String, line: Int) throws(CredentialError) -> (
        name: String, value: String
    )? {
        guard let equals = text.firstIndex(of: "="), !text[..<equals].contains(":") else { return nil }
        let name = text[..<equals].trimmingWhitespace(), value = text[text.index(after: equals)...].trimmingWhitespace()
        guard ["origin", "cacert", "cert", "key"].contains(name) else {
            throw .unknownSetting(path: path, line: line, name: name)
        }
        if name == "origin" {
            // Exactly an origin: a path, query or user part would suggest a narrower binding than the one kept.
            let bare = value.hasSuffix("/") ? String(value.dropLast()) : value
            let authority = bare.split(separator: "://", maxSplits: 1).last ?? ""
            guard let origin = try? Operation.origin(of: bare),
                  !authority.contains(where: { "/?#@".contains($0) })
            else { throw .badOrigin(path: path, line: line, value: value) }
            return (name, origin)
        }
        guard value.hasPrefix("/"), !value.utf8.contains(where: { $0 < 0x20 }) else {
            throw .notAbsolute(path: path, line: line, name: name)
        }
        return (name, value)
    }

    /// Checks a profile's private key: a regular file only its owner can read.
    package static func checkKeyFile(_ path: String) throws(CredentialError) {
        try openPrivate(FileName(path), in: .currentDirectory, path: path).close()
    }

    /// `name` in `directory`, opened without following a link or blocking, if it is a regular file only its
    /// owner can read or write: what a profile and its key must be.
    static func openPrivate(_ name: FileName, in directory: FileDescriptor, path: String)
        throws(CredentialError) -> FileDescriptor
    {
        let fd: FileDescriptor
        do { fd = try directory.open(name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK) } catch {
            throw .unreadable(path: path, error)
        }
        let status: FileStatus
        do { status = try fd.status() } catch {
            fd.close()
            throw .unreadable(path: path, error)
        }
        guard status.isRegularFile else { fd.close(); throw .notRegular(path: path) }
        guard status.permissions & 0o077 == 0 else { fd.close(); throw .tooOpen(path: path, mode: status.permissions) }
        return fd
    }
}

/// Why a credential profile cannot be used. Messages name the file, never its contents.
package enum CredentialError: Error, CustomStringConvertible {
    case noDirectory(profile: String)
    case unreadable(path: String, Errno)
    case notRegular(path: String)
    case tooOpen(path: String, mode: mode_t)
    case badLine(path: String, line: Int)
    case unknownSetting(path: String, line: Int, name: String)
    case notAbsolute(path: String, line: Int, name: String)
    case badOrigin(path: String, line: Int, value: String)
    case noOrigin(path: String, example: String)
    case wrongOrigin(profile: String, path: String, origin: String, allowed: [String])

    /// The message naming the profile's file, never its contents, and what is wrong with it.
    package var description: String {
        switch self {
        case let .noDirectory(profile):
            "the operation uses auth profile \"\(profile)\" but no auth directory is set (--auth-dir or SPOOL_AUTH_DIR)"
        case let .unreadable(path, error): "cannot read auth profile \(path): \(error)"
        case let .notRegular(path): "\(path) (an auth profile or its key) is not a regular file"
        case let .tooOpen(path, mode):
            "\(path) (an auth profile or its key) is readable by group or others (mode \(String(mode, radix: 8))); "
                + "chmod 600 it"
        case let .badLine(path, line):
            "auth profile \(path) line \(line) is neither 'Header-Name: value', 'origin = URL' nor "
                + "'cacert|cert|key = /path'"
        case let .unknownSetting(path, line, name):
            "auth profile \(path) line \(line): unknown setting '\(name)' (known: origin, cacert, cert, key)"
        case let .notAbsolute(path, line, name): "auth profile \(path) line \(line): '\(name)' needs an absolute path"
        case let .badOrigin(path, line, value):
            "auth profile \(path) line \(line): 'origin = \(value)' is not an origin; write scheme://host[:port], "
                + "such as 'origin = https://api.example.com'"
        case let .noOrigin(path, example):
            "auth profile \(path) names no origin its credentials may be sent to; add a line such as "
                + "'origin = \(example)'"
        case let .wrongOrigin(profile, _, origin, allowed):
            "auth profile \"\(profile)\" may be sent to \(allowed.joined(separator: ", ")) only, and this write "
                + "goes to \(origin); nothing was sent"
        }
    }
}
