import SpoolDocument
import SpoolSystem

/// Who may cause what in a shared spool (spool(5), PRODUCERS): which origins, auth profiles and handlers the
/// operations a user drops may name. It governs operations whose file is owned by someone other than root and
/// the spool's owner (they keep today's rules); without a policy file, such a producer may send to any origin
/// but name no auth profile and no handler, since those carry the host's credentials and programs.
///
/// The file holds lines `WHO WHAT NAME...`: WHO is a login name, `@group` or `*` (every producer), WHAT is
/// `origin`, `auth` or `handler`, and each NAME an origin (`https://api.example.com`), a profile, a handler,
/// or `*` for any. A producer's rights are the union of the lines that match them; once an `origin` line
/// matches, only the origins it names are open to them. `WHO queue COUNT` and `WHO bytes SIZE` limit the
/// writes (and their bytes) a producer may have waiting at once; of several lines, the largest holds.
package struct ProducerPolicy: Sendable, Equatable {
    /// What a line grants.
    package enum Kind: String, Sendable, CaseIterable {
        case origin, auth, handler, queue, bytes
    }

    /// Whom a line is for.
    package enum Who: Sendable, Equatable {
        case user(String)
        case group(String)
        case everyone

        /// Whether `user` is the one, or in the group, this names.
        package func matches(_ user: SystemUser) -> Bool {
            switch self {
            case let .user(name): user.name == name
            case let .group(name): user.groups.contains(name)
            case .everyone: true
            }
        }
    }

    /// One line of the file.
    package struct Rule: Sendable, Equatable {
        /// Whom it is for.
        package var who: Who
        /// What it grants.
        package var kind: Kind
        /// The names granted; nil for any (`*`).
        package var names: Set<String>?
    }

    /// A set of names, or any name.
    package struct Allowed: Sendable, Equatable {
        /// The names; nil for any.
        package var names: Set<String>?

        /// Whether `name` is in it.
        package func contains(_ name: String) -> Bool { names?.contains(name) ?? true }

        mutating func add(_ more: Set<String>?) {
            guard let current = names else { return }
            names = more.map { current.union($0) }
        }
    }

    /// What one producer may name.
    package struct Rights: Sendable, Equatable {
        /// The producer.
        package var user: SystemUser
        /// Origins their requests may go to; nil when no line limits them (any origin).
        package var origins: Allowed?
        /// Auth profiles they may name.
        package var profiles = Allowed(names: [])
        /// Handlers they may name.
        package var handlers = Allowed(names: [])
        /// The most writes they may have waiting at once; nil for no limit.
        package var maxWaiting: Int64?
        /// The most bytes (documents and payloads) they may have waiting at once; nil for no limit.
        package var maxBytes: Int64?

        /// Why `operation` is outside these rights, or nil when it is within them.
        package func refusal(_ operation: Operation, policyPath: String?) -> String? {
            let source = policyPath.map { "the producer policy \($0)" } ?? "no producer policy (spool(5), PRODUCERS)"
            let what: String
            if let handler = operation.handler {
                guard !handlers.contains(handler) else { return nil }
                what = "may not run the handler '\(handler)'"
            } else if let origins, !origins.contains(operation.origin) {
                what = "may not send to \(operation.origin)"
            } else if let profile = operation.auth, !profiles.contains(profile) {
                what = "may not name the auth profile '\(profile)'"
            } else {
                return nil
            }
            return "dropped by \(user.display), who \(what) under \(source); nothing was sent"
        }
    }

    /// The lines, in file order.
    package var rules: [Rule]

    /// A policy of these lines; none gives the default.
    package init(rules: [Rule] = []) { self.rules = rules }

    /// What `user` may name under this policy.
    package func rights(of user: SystemUser) -> Rights {
        var rights = Rights(user: user)
        var limits: [Kind: [Int64?]] = [:]
        for rule in rules where rule.who.matches(user) {
            switch rule.kind {
            case .origin:
                if rights.origins == nil { rights.origins = Allowed(names: []) }
                rights.origins!.add(rule.names)
            case .auth: rights.profiles.add(rule.names)
            case .handler: rights.handlers.add(rule.names)
            case .queue, .bytes: limits[rule.kind, default: []].append(rule.names?.first.flatMap(Int64.init))
            }
        }
        // The largest of the lines that name them; `*` is none.
        func largest(_ kind: Kind) -> Int64? {
            guard let values = limits[kind], !values.contains(nil) else { return nil }
            return values.compactMap { $0 }.max()
        }
        (rights.maxWaiting, rights.maxBytes) = (largest(.queue), largest(.bytes))
        return rights
    }

    /// Reads and parses the file at `path`, held to spool.conf's rules (regular, not a link, written by its
    /// owner only).
    package static func load(path: String) throws(ConfigurationError) -> ProducerPolicy {
        try parse(String(decoding: SpoolConfiguration.readAdministratorFile(path), as: UTF8.self), path: path)
    }

    /// Parses the text of a policy file; `path` is only for messages.
    package static func parse(_ text: String, path: String) throws(ConfigurationError) -> ProducerPolicy {
        var rules: [Rule] = []
        // Split as bytes: in Swift "\r\n" is one Character, which a split at "\n" would not cut.
        for (index, raw) in text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
            let words = SpoolConfiguration.withoutComment(Substring(raw))
                .split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            if words.isEmpty { continue }
            rules.append(try rule(words, path: path, line: index + 1))
        }
        return ProducerPolicy(rules: rules)
    }

    private static func rule(_ words: [String], path: String, line: Int) throws(ConfigurationError) -> Rule {
        guard words.count >= 3 else {
            throw .badPolicyLine(
                path: path, line: line, why: "expected 'WHO WHAT NAME...' (for example 'alice auth billing')")
        }
        let who: Who
        switch words[0] {
        case "*": who = .everyone
        case let group where group.hasPrefix("@") && group.count > 1: who = .group(String(group.dropFirst()))
        case let user where !user.hasPrefix("@"): who = .user(user)
        default: throw .badPolicyLine(path: path, line: line, why: "'@' must be followed by a group name")
        }
        guard let kind = Kind(rawValue: words[1]) else {
            throw .badPolicyLine(
                path: path, line: line, why: "'\(words[1])' is not origin, auth, handler, queue or bytes")
        }
        let names = Array(words.dropFirst(2))
        if names.contains("*") { return Rule(who: who, kind: kind, names: nil) }
        if kind == .queue || kind == .bytes {
            // One number: a count of writes, or bytes with k, M or G.
            let limit = kind == .queue ? Int64(names[0]) : ByteCount.parse(names[0])
            guard names.count == 1, let limit, limit > 0 else {
                throw .badPolicyLine(
                    path: path, line: line, why: kind == .queue
                        ? "'queue' takes one count of writes, such as 'alice queue 1000'"
                        : "'bytes' takes one size, such as 'alice bytes 100M'")
            }
            return Rule(who: who, kind: kind, names: [String(limit)])
        }
        guard kind == .origin else { return Rule(who: who, kind: kind, names: Set(names)) }
        var origins: Set<String> = []
        for name in names {
            guard let origin = try? SpoolConfiguration.sectionName(name, path: path, line: line), origin != "default"
            else {
                throw .badPolicyLine(
                    path: path, line: line, why: "'\(name)' is not an origin such as https://api.example.com")
            }
            origins.insert(origin)
        }
        return Rule(who: who, kind: kind, names: origins)
    }
}
