import Glibc
import SpoolDocument
import SpoolNames
import SpoolSystem
import SpoolTransport

/// Why spool.conf(5) cannot be used. spool-send refuses to start on any of them (EX_CONFIG, 78) rather
/// than guess; each names the file and, where there is one, the line and the key.
package enum ConfigurationError: Error, Equatable, CustomStringConvertible {
    case unreadable(path: String, Errno)
    case notRegular(path: String)
    case writableByOthers(path: String, mode: mode_t)
    case tooLarge(path: String)
    case badLine(path: String, line: Int)
    case badSection(path: String, line: Int, name: String, why: String)
    case repeatedSection(path: String, line: Int, name: String)
    case outsideSection(path: String, line: Int, key: String)
    case unknownKey(path: String, line: Int, key: String)
    case repeatedKey(path: String, line: Int, key: String)
    case badValue(path: String, line: Int, key: String, value: String, expected: String)
    case badPolicyLine(path: String, line: Int, why: String)

    /// The message naming the file and, where there is one, the line and the key, and what is wrong.
    package var description: String {
        switch self {
        case let .unreadable(path, error): "cannot read the configuration \(path): \(error)"
        case let .notRegular(path): "the configuration \(path) is not a regular file (links are not followed)"
        case let .writableByOthers(path, mode):
            "the configuration \(path) is writable by group or others (mode \(String(mode, radix: 8))); chmod go-w it"
        case let .tooLarge(path): "the configuration \(path) is larger than 1 MiB"
        case let .badLine(path, line): "\(path) line \(line): neither '[section]' nor 'key = value'"
        case let .badSection(path, line, name, why): "\(path) line \(line): section [\(name)] \(why)"
        case let .repeatedSection(path, line, name): "\(path) line \(line): section [\(name)] appears twice; merge them"
        case let .outsideSection(path, line, key):
            "\(path) line \(line): '\(key)' comes before any section; put it under [default]"
        case let .unknownKey(path, line, key):
            "\(path) line \(line): unknown key '\(key)' (known: \(SpoolConfiguration.keys.joined(separator: ", ")))"
        case let .repeatedKey(path, line, key): "\(path) line \(line): '\(key)' is set twice in this section"
        case let .badValue(path, line, key, value, expected):
            "\(path) line \(line): \(key) = \(value): expected \(expected)"
        case let .badPolicyLine(path, line, why): "\(path) line \(line): \(why)"
        }
    }
}
