import SpoolSystem
import SpoolTransport

/// The options of curl that describe a write, read with curl's meaning, so that `curl` in a script can become
/// `spool-enqueue`: the method, headers and body they make, gathered while the command line is parsed and
/// turned into an operation document once it is whole (`EnqueueCommand+Curl.swift`).
package struct CurlWrite: Sendable {
    /// One piece of a body, as the option that gave it.
    package enum Piece: Sendable, Equatable {
        /// `-d/--data`: `@file` read with CR and LF removed, else as is.
        case data(String)
        /// `--data-binary`: `@file` read as it is, else as is.
        case binary(String)
        /// `--data-raw`: as is, `@` included.
        case raw(String)
        /// `--data-urlencode`, in curl's five forms.
        case urlencode(String)
    }

    /// `-X/--request`.
    package var method: String?
    /// `-H/--header` lines in order: a value, an empty value (`Name;`), or nil to remove the header (`Name:`).
    package var headers: [(name: String, value: String?)] = []
    /// `-d`, `--data-binary`, `--data-raw`, `--data-urlencode` pieces, joined with `&`.
    package var data: [Piece] = []
    /// `--json` pieces, joined as they are.
    package var json: [Piece] = []
    /// `-F/--form` parts: `name=value`, `name=@file[;type=…][;filename=…]`, `name=<file`.
    package var forms: [String] = []
    /// `-T/--upload-file`: a file, or `-` for standard input, streamed as the payload.
    package var uploadFile: String?
    /// `-A/--user-agent`, `-e/--referer`, and `-b/--cookie` pairs.
    package var userAgent: String?
    /// `-e/--referer`: the Referer header.
    package var referer: String?
    /// `-b/--cookie` `NAME=VALUE` pairs in order, joined into one Cookie header.
    package var cookies: [String] = []
    /// Whether any of these options was given.
    package var isUsed: Bool {
        method != nil || !headers.isEmpty || !data.isEmpty || !json.isEmpty || !forms.isEmpty || uploadFile != nil
            || userAgent != nil
            || referer != nil || !cookies.isEmpty
    }

    /// The options that take a value, by every name curl gives them.
    static let valued: [String: String] = [
        "-X": "--request", "--request": "--request", "-H": "--header", "--header": "--header", "-d": "--data",
        "--data": "--data",
        "--data-ascii": "--data", "--data-binary": "--data-binary", "--data-raw": "--data-raw",
        "--data-urlencode": "--data-urlencode", "-T": "--upload-file", "--upload-file": "--upload-file",
        "-A": "--user-agent", "--user-agent": "--user-agent", "-e": "--referer", "--referer": "--referer",
        "-b": "--cookie", "--cookie": "--cookie", "-F": "--form", "--form": "--form",
    ]

    /// curl's flags whose meaning a queued write keeps, or that are moot for it, taken and ignored so that a
    /// script's `curl -sSf` becomes `spool-enqueue -sSf`: silence and error display apply to spool-enqueue
    /// itself (it prints only the id, and always its errors), and a 4xx is filed in `failed/` as `-f` fails.
    static let kept: Set<String> = ["-s", "--silent", "-S", "--show-error", "-f", "--fail", "--fail-with-body"]

    /// Whether `token` is curl's short options bundled (`-sS`, `-sSf`, `-fsSd@file`): one dash, more than one
    /// letter, and not a valued option with its value attached (`-d@file`).
    static func isBundle(_ token: String) -> Bool {
        token.count > 2 && token.hasPrefix("-") && !token.hasPrefix("--") && valued[String(token.prefix(2))] == nil
    }

    /// curl's options that only matter to a live request, or that would put a secret or a path in the spool,
    /// with what to do instead.
    static let refused: [String: String] = [
        "-o": "there is no answer to save: spool delivers later, and nobody reads the answer",
        "--output": "there is no answer to save: spool delivers later, and nobody reads the answer",
        "-O": "there is no answer to save: spool delivers later, and nobody reads the answer",
        "--remote-name": "there is no answer to save: spool delivers later, and nobody reads the answer",
        "-i": "there is no answer to show", "--include": "there is no answer to show",
        "-w": "there is no answer to describe", "--write-out": "there is no answer to describe",
        "-v": "spool-send -v says what is sent", "--verbose": "spool-send -v says what is sent",
        "-L": "spool-send never follows redirects: queue the final URL",
        "--location": "spool-send never follows redirects: queue the final URL",
        "--retry": "spool-send retries with backoff by itself (spool-send(8), --max-attempts)",
        "-I": "spool queues writes; a HEAD has nobody to read its answer",
        "--head": "spool queues writes; a HEAD has nobody to read its answer",
        "-G": "spool queues writes; a GET has nobody to read its answer",
        "--get": "spool queues writes; a GET has nobody to read its answer",
        "-u": "a secret must not enter the spool: name an auth profile with --auth NAME (spool(5))",
        "--user": "a secret must not enter the spool: name an auth profile with --auth NAME (spool(5))",
        "--oauth2-bearer": "a secret must not enter the spool: name an auth profile with --auth NAME (spool(5))",
        "-k": "spool-send trusts the CA files of spool.conf(5) (cacert) or --cacert, never none",
        "--insecure": "spool-send trusts the CA files of spool.conf(5) (cacert) or --cacert, never none",
        "-x": "set the proxy for spool-send: --proxy or proxy in spool.conf(5)",
        "--proxy": "set the proxy for spool-send: --proxy or proxy in spool.conf(5)",
        "-m": "spool-send --timeout bounds each attempt", "--max-time": "spool-send --timeout bounds each attempt",
        "--limit-rate": "spool-send --max-rate (or max-rate in spool.conf) caps uploads",
    ]

    /// Takes the value of curl option `name` (one of `valued`'s canonical names).
    mutating func take(_ name: String, _ value: String) throws(UsageError) {
        switch name {
        case "--request": method = value
        case "--header":
            guard let separator = value.firstIndex(where: { $0 == ":" || $0 == ";" }) else {
                throw .invalidValue(option: "-H", value: value, expected: "'Name: value', 'Name;' or 'Name:'")
            }
            let header = String(value[..<separator]).trimmingWhitespace()
            let rest = String(value[value.index(after: separator)...]).trimmingWhitespace()
            if value[separator] == ";" {
                guard rest.isEmpty else {
                    throw .invalidValue(option: "-H", value: value, expected: "'Name;' for an empty value")
                }
                headers.append((header, ""))
            } else {
                headers.append((header, rest.isEmpty ? nil : rest))
            }
        case "--data": data.append(.data(value))
        case "--data-binary": data.append(.binary(value))
        case "--data-raw": data.append(.raw(value))
        case "--data-urlencode": data.append(.urlencode(value))
        case "--upload-file": uploadFile = value
        case "--form":
            guard let equals = value.firstIndex(of: "="), equals != value.startIndex else {
                throw .invalidValue(option: "-F", value: value, expected: "name=value, name=@file or name=<file")
            }
            forms.append(value)
        case "--user-agent": userAgent = value
        case "--referer": referer = value
        default:
            guard value.contains("=") else {
                throw .invalidValue(
                    option: "-b", value: value,
                    expected: "NAME=VALUE pairs: a cookie file is a path spool does not read")
            }
            cookies.append(value)
        }
    }

    /// `--json`'s value: curl's meaning, a piece of a JSON body.
    mutating func takeJSON(_ value: String) { json.append(.binary(value)) }

    /// The method curl would use: `-X`, else PUT for `-T`, POST for a body, else GET.
    package var impliedMethod: String {
        method ?? (uploadFile != nil ? "PUT" : (!data.isEmpty || !json.isEmpty || !forms.isEmpty) ? "POST" : "GET")
    }

    /// Percent-encodes as curl's `--data-urlencode` does: unreserved characters as they are, a space as `+`,
    /// the rest `%XX`.
    static func urlencoded(_ bytes: [UInt8], spaceAsPlus: Bool = true) -> String {
        var out = ""
        for byte in bytes {
            if HTTPSyntax.isAlphanumeric(byte) || "-._~".utf8.contains(byte) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else if spaceAsPlus, byte == UInt8(ascii: " ") {
                out += "+"
            } else {
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }
}
