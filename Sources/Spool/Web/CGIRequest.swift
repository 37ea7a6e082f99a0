import Glibc
import SpoolSystem

/// What the web server hands a CGI program (RFC 3875): the request's method, its query, its form body and
/// the user it authenticated. Parsed from values, so that the parsing is tested without a server.
package struct CGIRequest: Sendable {
    /// `REQUEST_METHOD`, upper-cased.
    package var method: String
    /// The query string's parameters (the first value of each name).
    package var query: [String: String]
    /// A POST's `application/x-www-form-urlencoded` parameters.
    package var form: [String: String]
    /// `REMOTE_USER`: whom the web server authenticated; nil when it does no authentication.
    package var remoteUser: String?
    /// `SCRIPT_NAME`: the page's own path, for links and forms.
    package var scriptName: String

    /// The largest form body read: the page's forms send a few hundred bytes.
    package static let maxBodyBytes = 64 * 1024

    /// A request from the CGI meta-variables and the body read from standard input.
    package init(environment: (String) -> String?, body: [UInt8]) {
        method = (environment("REQUEST_METHOD") ?? "GET").uppercased()
        query = CGIRequest.decodeForm(environment("QUERY_STRING") ?? "")
        let type = environment("CONTENT_TYPE")?.lowercased() ?? ""
        form = type.hasPrefix("application/x-www-form-urlencoded")
            ? CGIRequest.decodeForm(String(decoding: body, as: UTF8.self)) : [:]
        remoteUser = environment("REMOTE_USER").flatMap { $0.isEmpty ? nil : $0 }
        scriptName = environment("SCRIPT_NAME") ?? ""
    }

    /// The request this process was started for: its environment, and `CONTENT_LENGTH` bytes of standard
    /// input (at most `maxBodyBytes`).
    package static func current() -> CGIRequest {
        let length = min(Int(Environment.value("CONTENT_LENGTH") ?? "") ?? 0, maxBodyBytes)
        var body: [UInt8] = []
        if length > 0 {
            var buffer = [UInt8](repeating: 0, count: length)
            var count = 0
            while count < length {
                let n = buffer.withUnsafeMutableBytes { try? FileDescriptor(rawValue: STDIN_FILENO).read(
                    into: $0.baseAddress! + count, count: length - count) } ?? 0
                if n <= 0 { break }
                count += n
            }
            body = Array(buffer[..<count])
        }
        return CGIRequest(environment: { Environment.value($0) }, body: body)
    }

    /// `name=value&…` with `+` for space and `%XX` escapes; names without `=` get an empty value.
    package static func decodeForm(_ text: String) -> [String: String] {
        var result: [String: String] = [:]
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = percentDecoded(parts[0]), value = parts.count > 1 ? percentDecoded(parts[1]) : ""
            if result[name] == nil { result[name] = value }
        }
        return result
    }

    /// Percent-decoding of one form component (invalid escapes are kept as they are).
    static func percentDecoded(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        var utf8 = Array(text.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "+") {
                bytes.append(0x20)
            } else if byte == UInt8(ascii: "%"), utf8.count >= 2,
                      let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Percent-encoding for a query value in a link the page writes.
    package static func percentEncoded(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                 UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }
}
