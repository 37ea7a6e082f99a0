import Glibc
import SpoolDocument
import SpoolSystem

/// A TLS file an administrator named (`--cacert`, `cacert` in spool.conf(5), `cacert`, `cert` or `key` in an
/// auth profile) that cannot serve. Found before anything is sent, so that spool-send exits 78 naming the
/// file instead of spending an attempt on every https operation with `e=tls`; `spool-ctl check` reports it.
package struct UnusableTLSFile: Error, Equatable, CustomStringConvertible {
    /// What the file is for.
    package enum Role: String, Sendable {
        case caFile = "CA file"
        case certificate = "client certificate"
        case key = "private key"
    }

    /// The file's path.
    package let path: String
    /// What it is for.
    package let role: Role
    /// Where it is named, for the message: `--cacert`, `spool.conf [https://api.example]`, `auth profile P`.
    package let namedBy: String
    /// What is wrong with it.
    package let why: String

    /// The message naming the file, its role, where it was named, and why it cannot be used.
    package var description: String { "the \(role.rawValue) \(path) (named by \(namedBy)) cannot be used: \(why)" }
}

/// The checks of TLS files: readable, a regular file, and holding what its role needs in PEM, as libcurl
/// reads it. The files are the administrator's own, outside the spool, so links are followed
/// (`/etc/ssl/certs/ca-certificates.crt` is one).
package enum TLSFileCheck {
    /// The most of a file that is read to find its PEM block: a CA bundle of every public CA is ~220 KiB.
    package static let readLimit = 16 << 20

    /// Why `path` cannot serve as `role`, or nil when it can.
    package static func check(_ path: String, _ role: UnusableTLSFile.Role, namedBy: String) -> UnusableTLSFile? {
        func unusable(_ why: String) -> UnusableTLSFile {
            UnusableTLSFile(path: path, role: role, namedBy: namedBy, why: why)
        }
        let fd: FileDescriptor
        do { fd = try FileDescriptor.currentDirectory.open(FileName(path), O_RDONLY | O_NONBLOCK) } catch {
            return unusable("\(error)")
        }
        defer { fd.close() }
        let text: String
        do {
            guard try fd.status().isRegularFile else { return unusable("it is not a regular file") }
            text = String(decoding: try fd.readAll(limit: readLimit).bytes, as: UTF8.self)
        } catch {
            return unusable("\(error)")
        }
        switch role {
        case .caFile, .certificate:
            if !text.contains("-----BEGIN CERTIFICATE-----") {
                return unusable("it holds no PEM certificate (-----BEGIN CERTIFICATE-----)")
            }
        case .key:
            if !(text.contains("-----BEGIN ") && text.contains("PRIVATE KEY-----")) {
                return unusable("it holds no PEM private key (-----BEGIN ... PRIVATE KEY-----)")
            }
        }
        return nil
    }

    /// The first unusable file among those spool.conf(5) and the command line name: the default CA file and
    /// each origin section's own.
    package static func firstProblem(in configuration: SpoolConfiguration, path: String?) -> UnusableTLSFile? {
        if let file = configuration.defaults.caFile,
            let problem = check(
                file, .caFile,
                namedBy: path.map { "--cacert, SPOOL_CA_FILE or [default] in \($0)" } ?? "--cacert or SPOOL_CA_FILE")
        {
            return problem
        }
        for origin in configuration.origins.keys.sorted() {
            guard let file = configuration.origins[origin]?.caFile else { continue }
            if let problem = check(file, .caFile, namedBy: "[\(origin)] in \(path ?? "spool.conf")") { return problem }
        }
        return nil
    }

    /// The unusable files an auth profile names.
    package static func problems(in profile: Credentials.Profile, name: String) -> [UnusableTLSFile] {
        let named = "auth profile \(name)"
        return [
            (profile.tls.caFile, UnusableTLSFile.Role.caFile), (profile.tls.certificateFile, .certificate),
            (profile.tls.keyFile, .key)
        ]
        .compactMap { file, role in file.flatMap { check($0, role, namedBy: named) } }
    }
}
