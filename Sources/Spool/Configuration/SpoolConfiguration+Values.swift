import SpoolDocument
import SpoolNames
import SpoolSystem
import SpoolTransport

/// The values of spool.conf(5)'s keys, each checked as it is read.
extension SpoolConfiguration {
    /// Sets `key` from `value` in `settings`, or says what was expected.
    package static func set(_ key: String, _ value: String, in settings: inout OriginSettings, path: String, line: Int)
        throws(ConfigurationError)
    {
        func bad(_ expected: String) -> ConfigurationError {
            .badValue(path: path, line: line, key: key, value: value, expected: expected)
        }
        switch key {
        case "max-concurrency":
            guard let n = Int(value), (1...256).contains(n) else { throw bad("an integer from 1 to 256") }
            settings.maxConcurrency = n
        case "initial-concurrency":
            guard let n = Int(value), (1...256).contains(n) else { throw bad("an integer from 1 to 256") }
            settings.initialConcurrency = n
        case "rate":
            guard let rate = rate(value) else {
                throw bad("requests per unit of time as curl's --rate writes it: 10/s, 600/m, 1000/h or 5000/d")
            }
            settings.rate = rate
        case "burst":
            guard let n = Int(value), (1...10_000).contains(n) else { throw bad("an integer from 1 to 10000") }
            settings.burst = n
        case "cacert":
            guard value.hasPrefix("/"), !value.utf8.contains(where: { $0 < 0x20 }) else {
                throw bad("an absolute path to a PEM file of CA certificates")
            }
            settings.caFile = value
        case "proxy":
            guard !value.isEmpty, !value.utf8.contains(where: { $0 <= 0x20 || $0 >= 0x7F }) else {
                throw bad("a proxy URL such as http://proxy.example.com:3128")
            }
            settings.proxy = value
        case "warn-after":
            guard let seconds = Timestamp.parseDuration(value), seconds > 0 else {
                throw bad("a duration such as 30m, 4h or 1d")
            }
            settings.warnAfterSeconds = seconds
        case "max-rate":
            guard let bytes = ByteCount.parse(value), bytes > 0 else {
                throw bad("bytes per second as curl's --limit-rate writes them: 500k, 2M, 1G")
            }
            settings.maxSendBytesPerSecond = bytes
        case "fetch-on-conflict":
            guard value == "yes" || value == "no" else {
                throw bad("yes (one GET of the server's version when a write lands in conflict/, the default) or no")
            }
            settings.fetchesOnConflict = value == "yes"
        case "noproxy":
            guard !value.utf8.contains(where: { $0 < 0x20 }) else { throw bad("host names separated by commas, or *") }
            settings.noProxy = value
        default:
            switch value {
            case "1.1": settings.version = .http1_1
            case "2": settings.version = .automatic
            default: throw bad("1.1 (HTTP/1.1 only) or 2 (HTTP/2 where the server offers it, the default)")
            }
        }
    }

    /// `handler-dir`: an absolute path, and a setting of the whole spool-send, not of one origin.
    package static func handlerDirectory(_ value: String, section: String, path: String, line: Int)
        throws(ConfigurationError) -> String
    {
        try absolutePath(value, key: "handler-dir", of: "the directory of handlers", section: section, path: path,
                         line: line)
    }

    /// An absolute path for a `[default]`-only key (`handler-dir`, `producers`).
    package static func absolutePath(_ value: String, key: String, of what: String, section: String, path: String,
                                     line: Int) throws(ConfigurationError) -> String {
        guard section == "default" else {
            throw .badValue(
                path: path, line: line, key: key, value: value,
                expected: "the key in [default] only: it is spool-send's, not one origin's")
        }
        guard value.hasPrefix("/"), !value.utf8.contains(where: { $0 < 0x20 }) else {
            throw .badValue(path: path, line: line, key: key, value: value, expected: "an absolute path to \(what)")
        }
        return value
    }

    /// Requests per second from curl's `N/U` (U one of s, m, h, d), or nil.
    package static func rate(_ text: String) -> Double? {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let count = Int(parts[0]), count > 0, count <= 1_000_000 else { return nil }
        let seconds: Double
        switch parts[1] {
        case "s": seconds = 1
        case "m": seconds = 60
        case "h": seconds = 3600
        case "d": seconds = 86400
        default: return nil
        }
        return Double(count) / seconds
    }
}
