import Glibc
import SpoolDocument
import SpoolSystem

/// spool.conf(5): the administrator's settings per origin, in sections (`[default]`,
/// `[https://api.example.com]`) of `key = value` lines, read strictly: an unknown key or a bad value is an
/// error naming the file, the line and the key, never a guess.
package struct SpoolConfiguration: Sendable, Equatable {
    /// The `[default]` section: what every origin gets unless its own section says otherwise.
    package var defaults = OriginSettings()
    /// One section per origin, keyed by the origin as `Operation.origin` writes it.
    package var origins: [String: OriginSettings] = [:]

    /// The keys a section may set.
    package static let keys = [
        "max-concurrency", "initial-concurrency", "rate", "burst", "cacert", "proxy", "noproxy", "http-version",
        "warn-after", "handler-dir", "max-rate", "max-payload", "fetch-on-conflict",
        "producers", "max-queue", "min-free"
    ]

    /// The handler directory (`handler-dir`, in `[default]` only): where the programs that jobs name live.
    package var handlerDirectory: String?
    /// The producer policy file (`producers`, in `[default]` only): who may cause what in a shared spool.
    package var producerPolicyPath: String?
    /// That file's rules, read by `load`; the default policy when no file is named.
    package var producerPolicy = ProducerPolicy()
    /// The largest payload sent (`max-payload`, in `[default]` only), unless `--max-payload` says otherwise.
    package var maxPayload: Int64?
    /// The most operations waiting in `new/` before a set-group-ID spool-enqueue refuses (`max-queue`, in
    /// `[default]` only): its caller may lower it, never raise it.
    package var maxQueue: Int?
    /// The least free space a set-group-ID spool-enqueue leaves (`min-free`, in `[default]` only; 0: no
    /// check): its caller may raise it, never lower it.
    package var minFreeBytes: Int?

    /// Where a set-group-ID spool-enqueue reads the administrator's limits: the host's file, whatever its
    /// caller names.
    package static let hostPath = "/etc/spool/spool.conf"

    /// No settings: what spool-send uses without `--config` or `SPOOL_CONFIG`.
    package init() {}

    /// The settings for `origin`: its section's, then `[default]`'s.
    package func settings(for origin: String) -> OriginSettings {
        // Asked for every request: an origin without a section of its own, the usual case, has the defaults
        // as they are, neither merged nor, without any section, hashed.
        guard !origins.isEmpty, let specific = origins[origin] else { return defaults }
        return specific.over(defaults)
    }

    /// The file named by `--config`, else `SPOOL_CONFIG`; none by default.
    package static func defaultPath(option: String?) -> String? {
        option ?? Environment.value("SPOOL_CONFIG")
    }

    /// Reads and parses the file at `path`: a regular file (not a link) that group and others cannot write,
    /// since it decides where requests go and whom they trust.
    package static func load(path: String) throws(ConfigurationError) -> SpoolConfiguration {
        var configuration = try parse(String(decoding: readAdministratorFile(path), as: UTF8.self), path: path)
        if let policy = configuration.producerPolicyPath {
            configuration.producerPolicy = try ProducerPolicy.load(path: policy)
        }
        return configuration
    }

    /// The bytes of an administrator's file (spool.conf, the producer policy): a regular file, not a link,
    /// that group and others cannot write, of at most 1 MiB.
    package static func readAdministratorFile(_ path: String) throws(ConfigurationError) -> [UInt8] {
        let fd: FileDescriptor
        do {
            fd = try FileDescriptor.currentDirectory.open(FileName(path), O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
        } catch .tooManySymbolicLinkLevels {
            throw .notRegular(path: path)
        } catch {
            throw .unreadable(path: path, error)
        }
        defer { fd.close() }
        let status: FileStatus
        do { status = try fd.status() } catch { throw .unreadable(path: path, error) }
        guard status.isRegularFile else { throw .notRegular(path: path) }
        guard status.permissions & 0o022 == 0 else { throw .writableByOthers(path: path, mode: status.permissions) }
        let read: (bytes: [UInt8], truncated: Bool)
        do { read = try fd.readAll(limit: 1 << 20) } catch { throw .unreadable(path: path, error) }
        guard !read.truncated else { throw .tooLarge(path: path) }
        return read.bytes
    }

    /// Parses the text of a configuration file; `path` is only for messages.
    package static func parse(_ text: String, path: String) throws(ConfigurationError) -> SpoolConfiguration {
        var configuration = SpoolConfiguration()
        var section: (name: String, settings: OriginSettings, keys: Set<String>)?
        var seen: Set<String> = []
        func close() {
            guard let section else { return }
            if section.name == "default" {
                configuration.defaults = section.settings
            } else {
                configuration.origins[section.name] = section.settings
            }
        }
        // Split as bytes: in Swift "\r\n" is one Character, which a split at "\n" would not cut.
        for (index, raw) in text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
            let line = index + 1
            let text = SpoolConfiguration.withoutComment(Substring(raw))
            if text.isEmpty { continue }
            if text.hasPrefix("[") {
                guard text.hasSuffix("]") else { throw .badLine(path: path, line: line) }
                let name = try sectionName(
                    String(text.dropFirst().dropLast()).trimmingWhitespace(), path: path, line: line)
                guard seen.insert(name).inserted else { throw .repeatedSection(path: path, line: line, name: name) }
                close()
                section = (name, OriginSettings(), [])
                continue
            }
            guard let equals = text.firstIndex(of: "=") else { throw .badLine(path: path, line: line) }
            let key = text[..<equals].trimmingWhitespace(),
                value = text[text.index(after: equals)...].trimmingWhitespace()
            guard SpoolConfiguration.keys.contains(key) else { throw .unknownKey(path: path, line: line, key: key) }
            guard section != nil else { throw .outsideSection(path: path, line: line, key: key) }
            guard section!.keys.insert(key).inserted else { throw .repeatedKey(path: path, line: line, key: key) }
            if key == "max-queue" || key == "min-free" {
                guard section!.name == "default" else {
                    throw .badValue(path: path, line: line, key: key, value: value,
                                    expected: "a setting of [default]: it is spool-enqueue's, not one origin's")
                }
                let number = key == "min-free" ? ByteCount.parse(value).map(Int.init) : Int(value)
                guard let number, number >= 0 else {
                    throw .badValue(path: path, line: line, key: key, value: value, expected: "a number, 0 or more")
                }
                if key == "max-queue" { configuration.maxQueue = number } else { configuration.minFreeBytes = number }
                continue
            }
            if key == "max-payload" {
                guard section!.name == "default" else {
                    throw .badValue(path: path, line: line, key: key, value: value,
                                    expected: "a setting of [default]: it is spool-send's, not one origin's")
                }
                guard let bytes = ByteCount.parse(value), bytes > 0 else {
                    throw .badValue(
                        path: path, line: line, key: key, value: value, expected: "bytes, or a number with k, M or G")
                }
                configuration.maxPayload = bytes
                continue
            }
            if key == "producers" {
                configuration.producerPolicyPath = try absolutePath(
                    value, key: key, of: "the producer policy file", section: section!.name, path: path, line: line)
                continue
            }
            if key == "handler-dir" {
                configuration.handlerDirectory = try handlerDirectory(
                    value, section: section!.name, path: path, line: line)
                continue
            }
            try SpoolConfiguration.set(key, value, in: &section!.settings, path: path, line: line)
        }
        close()
        return configuration
    }

    /// A line without its comment (`#` at its start or after white space) and surrounding white space.
    package static func withoutComment(_ raw: Substring) -> String {
        var text = raw.hasSuffix("\r") ? raw.dropLast() : raw
        var previous: Character = " "
        for index in text.indices {
            if text[index] == "#", previous == " " || previous == "\t" {
                text = text[..<index]
                break
            }
            previous = text[index]
        }
        return text.trimmingWhitespace()
    }

    /// `default`, or an origin written as `scheme://host[:port]` with nothing after it.
    package static func sectionName(_ name: String, path: String, line: Int) throws(ConfigurationError) -> String {
        if name == "default" { return name }
        let origin: String
        do { origin = try Operation.origin(of: name) } catch {
            throw .badSection(
                path: path, line: line, name: name,
                why: "is neither 'default' nor an origin such as https://api.example.com")
        }
        let rest = name.dropFirst(name.firstRange(of: "://")!.upperBound.utf16Offset(in: name))
        guard !rest.contains("/"), !rest.contains("?"), !rest.contains("@") else {
            throw .badSection(
                path: path, line: line, name: name,
                why: "names an origin: scheme://host[:port], without user, path or query")
        }
        return origin
    }
}
