import CCrypto
import Glibc
import Spool
import SpoolSystem

/// The page's defence against cross-site request forgery: every form carries a token that is the HMAC-SHA256
/// (RFC 2104) of the authenticated user and the spool under a secret kept outside the spool, and an action
/// is done only when its token is that one. Another site can make a browser post, but cannot know the token.
public struct CSRFToken: Sendable {
    /// The secret's bytes.
    let secret: [UInt8]

    /// Why there is no usable secret.
    public enum SecretError: Error, CustomStringConvertible {
        case inSpool(path: String)
        case unusable(path: String, Errno)
        case tooShort(path: String)

        /// The message naming the secret's file and why it cannot serve.
        public var description: String {
            switch self {
            case let .inSpool(path):
                "\(path): the CSRF secret must live outside the spool (anyone who can write to new/ may read it)"
            case let .unusable(path, error): "\(path): the CSRF secret cannot be read or made: \(error)"
            case let .tooShort(path): "\(path): the CSRF secret is shorter than 16 bytes; remove it to make a new one"
            }
        }
    }

    /// A token maker over these secret bytes.
    public init(secret: [UInt8]) { self.secret = secret }

    /// The secret in the file at `path`, made there (32 random bytes, mode 0600, never replacing anything)
    /// on first use. Refused inside `spoolPath`, through a symbolic link, or shorter than 16 bytes.
    public static func load(path: String, spoolPath: String) throws(SecretError) -> CSRFToken {
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

    /// The token for `user` (nil: no authentication) acting on the spool at `spoolPath`, as 64 hex digits.
    public func token(user: String?, spoolPath: String) -> String {
        let message = Array("spool-cgi-1\n\(user ?? "")\n\(FileName.absolutePath(spoolPath))".utf8)
        var digest = [UInt8](repeating: 0, count: 64)
        var length: UInt32 = 0
        _ = secret.withUnsafeBytes { key in
            HMAC(EVP_sha256(), key.baseAddress, Int32(secret.count), message, message.count, &digest, &length)
        }
        return digest.prefix(Int(length)).map { String($0, radix: 16).leftPadded(to: 2) }.joined()
    }

    /// Whether `candidate` is the token for `user` on that spool, compared in constant time.
    public func verifies(_ candidate: String?, user: String?, spoolPath: String) -> Bool {
        guard let candidate else { return false }
        let expected = Array(token(user: user, spoolPath: spoolPath).utf8), given = Array(candidate.utf8)
        guard expected.count == given.count else { return false }
        return CRYPTO_memcmp(expected, given, expected.count) == 0
    }
}
