import CCrypto
import Glibc
import SpoolSystem

/// The page's defence against cross-site request forgery: every form carries a token that is the time it was
/// issued and the HMAC-SHA256 (RFC 2104) of the authenticated user, the spool, the form's action and that
/// time, under a secret kept outside the spool; an action is done only when its token is that one and at
/// most `lifetimeSeconds` old. Another site can make a browser post, but cannot know the token; a token
/// seen (in a log, a proxy) serves for one action of one user, and not for long.
package struct CSRFToken: Sendable {
    /// The secret's bytes.
    let secret: [UInt8]

    /// Why there is no usable secret.
    package enum SecretError: Error, CustomStringConvertible {
        case inSpool(path: String)
        case unusable(path: String, Errno)
        case tooShort(path: String)

        /// The message naming the secret's file and why it cannot serve.
        package var description: String {
            switch self {
            case let .inSpool(path):
                "\(path): the CSRF secret must live outside the spool (anyone who can write to new/ may read it)"
            case let .unusable(path, error): "\(path): the CSRF secret cannot be read or made: \(error)"
            case let .tooShort(path): "\(path): the CSRF secret is shorter than 16 bytes; remove it to make a new one"
            }
        }
    }

    /// A token maker over these secret bytes.
    package init(secret: [UInt8]) { self.secret = secret }

    /// The secret in the file at `path`, made there (32 random bytes, mode 0600, never replacing anything)
    /// on first use. Refused inside `spoolPath`, through a symbolic link, or shorter than 16 bytes.
    package static func load(path: String, spoolPath: String) throws(SecretError) -> CSRFToken {
        let absolute = FileName.absolutePath(path), spool = FileName.absolutePath(spoolPath)
        if absolute == spool || absolute.hasPrefix(spool.hasSuffix("/") ? spool : spool + "/") {
            throw .inSpool(path: path)
        }
        let bytes: [UInt8]
        do { bytes = try readOrMake(absolute) } catch { throw .unusable(path: path, error) }
        guard bytes.count >= 16 else { throw .tooShort(path: path) }
        return CSRFToken(secret: bytes)
    }

    /// The bytes of the secret file at `path`, made with 32 random bytes when there is none.
    private static func readOrMake(_ path: String) throws(Errno) -> [UInt8] {
        let directory = FileDescriptor.currentDirectory
        let fd: FileDescriptor
        do {
            fd = try directory.open(FileName(path), O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
        } catch .noSuchFileOrDirectory {
            var random = SystemRandomNumberGenerator()
            let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &random) }
            do {
                let made = try directory.open(FileName(path), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: 0o600)
                defer { made.close() }
                try made.writeAll(bytes)
                try made.sync()
                return bytes
            } catch .fileExists {
                // Another request made it first: read theirs.
                fd = try directory.open(FileName(path), O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
            }
        }
        defer { fd.close() }
        return try fd.readPrefix(limit: 4096).bytes
    }

    /// How long a page's forms may be sent: a working day.
    package static let lifetimeSeconds: Int64 = 8 * 3600

    /// The token for `user` (nil: no authentication) doing `action` on the spool at `spoolPath`, issued at
    /// `issuedAt` (epoch seconds): `ISSUED.HMAC`, the HMAC as 64 hex digits.
    package func token(user: String?, spoolPath: String, action: String, issuedAt: Int64) -> String {
        "\(issuedAt)." + mac(user: user, spoolPath: spoolPath, action: action, issuedAt: issuedAt)
    }

    /// The HMAC of a token, as 64 hex digits.
    func mac(user: String?, spoolPath: String, action: String, issuedAt: Int64) -> String {
        let fields = ["spool-cgi-2", user ?? "", FileName.absolutePath(spoolPath), action, String(issuedAt)]
        let message = Array(fields.joined(separator: "\n").utf8)
        var digest = [UInt8](repeating: 0, count: 64)
        var length: UInt32 = 0
        _ = secret.withUnsafeBytes { key in
            HMAC(EVP_sha256(), key.baseAddress, Int32(secret.count), message, message.count, &digest, &length)
        }
        return digest.prefix(Int(length)).map { String($0, radix: 16).leftPadded(to: 2) }.joined()
    }

    /// Whether `candidate` is the token for `user` doing `action` on that spool, issued at most
    /// `lifetimeSeconds` before `nowSeconds` (and not after it, but for a minute of clocks apart); the HMAC
    /// compared in constant time.
    package func verifies(_ candidate: String?, user: String?, spoolPath: String, action: String, nowSeconds: Int64)
        -> Bool
    {
        guard let candidate, let dot = candidate.firstIndex(of: "."), let issuedAt = Int64(candidate[..<dot]),
              issuedAt <= nowSeconds + 60, nowSeconds - issuedAt <= CSRFToken.lifetimeSeconds
        else { return false }
        let expected = Array(mac(user: user, spoolPath: spoolPath, action: action, issuedAt: issuedAt).utf8)
        let given = Array(candidate[candidate.index(after: dot)...].utf8)
        guard expected.count == given.count else { return false }
        return CRYPTO_memcmp(expected, given, expected.count) == 0
    }
}
