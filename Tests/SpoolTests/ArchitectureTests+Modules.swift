import Foundation
import Testing

/// The layers of ARCHITECTURE.md's code map as Package.swift declares them: the "may use" lines, and each
/// file's imports against its target's line.
extension ArchitectureTests {
    /// The layers' "may use" table in Package.swift (`"X": [...]`), C targets left out.
    static func packageDependencies() throws -> [String: Set<String>] {
        let text = try String(contentsOfFile: root + "/Package.swift", encoding: .utf8)
        let regex = try NSRegularExpression(pattern: #"^    "(Spool\w*)": \[([^\]]*)\],$"#, options: .anchorsMatchLines)
        var result: [String: Set<String>] = [:]
        for match in regex.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
            let name = String(text[Range(match.range(at: 1), in: text)!])
            let list = String(text[Range(match.range(at: 2), in: text)!])
            result[name] = Set(
                list.split(separator: ",").map {
                    $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                }
                .filter { $0.hasPrefix("Spool") })
        }
        return result
    }

    @Test func theCodeMapsMayUseLinesArePackageSwifts() throws {
        let text = try String(contentsOfFile: Self.root + "/ARCHITECTURE.md", encoding: .utf8)
        let regex = try NSRegularExpression(pattern: #"Target `(Spool\w*)`; may use: ([^.\n]*)\."#)
        var map: [String: Set<String>] = [:]
        for match in regex.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
            let uses = String(text[Range(match.range(at: 2), in: text)!])
            map[String(text[Range(match.range(at: 1), in: text)!])] =
                uses == "nothing but the C shims"
                ? []
                : Set(
                    uses.components(separatedBy: ", ").map {
                        $0.trimmingCharacters(in: CharacterSet(charactersIn: "` "))
                    })
        }
        let package = try Self.packageDependencies()
        #expect(package.count >= 11, "the layer targets: \(package.keys.sorted())")
        #expect(
            map == package,
            Comment(rawValue: "ARCHITECTURE.md \(map.sorted { $0.key < $1.key }) against Package.swift "
                + "\(package.sorted { $0.key < $1.key })")
        )
    }

    @Test func eachFileImportsOnlyWhatItsTargetMayUse() throws {
        // `swift build` finds any module of the package in its build folder, so a back-edge compiles unless
        // the build runs with --explicit-target-dependency-import-check error; this check does not need it.
        let text = try String(contentsOfFile: Self.root + "/Package.swift", encoding: .utf8)
        let regex = try NSRegularExpression(pattern: #"\.target\(name: "(Spool\w*)".*?path: "(Sources/[^"]+)""#)
        var paths: [String: String] = [:]
        for match in regex.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
            paths[String(text[Range(match.range(at: 1), in: text)!])] = String(
                text[Range(match.range(at: 2), in: text)!])
        }
        let direct = try Self.packageDependencies()
        func closure(_ target: String) -> Set<String> {
            var seen = Set<String>(), work = [target]
            while let next = work.popLast() {
                for dependency in direct[next] ?? [] where seen.insert(dependency).inserted { work.append(dependency) }
            }
            return seen
        }
        #expect(paths.count >= 11, "\(paths)")
        var found: [String] = []
        for (target, path) in paths {
            let allowed = closure(target)
            for (file, source) in try Self.sources(path) {
                for line in Self.matches(#"^(@testable )?import Spool\w*$"#, in: source) {
                    let module = String(line.split(separator: " ").last!)
                    if !allowed.contains(module) {
                        found.append("\(file): \(line) (\(target) may use \(allowed.sorted()))")
                    }
                }
            }
        }
        #expect(found.isEmpty, "back-edges: \(found)")
    }

    /// Every target names, in the package as SwiftPM reads it, every module of the package that its files
    /// import: SwiftPM recompiles a module only when a module it names changes, and a release build inlines
    /// across modules, so a program that reached a layer only through another kept that layer's old class
    /// sizes after an incremental build (Package.swift, `uses`).
    @Test func everyTargetNamesEveryModuleItImports() throws {
        let scratch = NSTemporaryDirectory() + "spool-dump-package-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let dump = try Command.run(
            "/usr/bin/env", ["swift", "package", "--scratch-path", scratch, "dump-package"], timeout: 300,
            workingDirectory: Self.root)
        try #require(dump.status == 0, "swift package dump-package: \(dump.stderr)")
        let package = try #require(
            try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any], "\(dump.stdout)")
        let targets = try #require(package["targets"] as? [[String: Any]])
        let modules = Set(targets.compactMap { ($0["name"] as? String).map { $0.replacingOccurrences(of: "-", with: "_") } })
        #expect(targets.count >= 20, "\(targets.count) targets")
        var found: [String] = []
        for target in targets {
            guard let name = target["name"] as? String else { continue }
            let named = Set(
                ((target["dependencies"] as? [[String: Any]]) ?? []).compactMap {
                    (($0["target"] ?? $0["byName"]) as? [Any])?.first as? String
                })
            let path = (target["path"] as? String)
                ?? (target["type"] as? String == "test" ? "Tests/\(name)" : "Sources/\(name)")
            let files = (FileManager.default.enumerator(atPath: Self.root + "/" + path)?.allObjects as? [String] ?? [])
                .filter { $0.hasSuffix(".swift") }
            for file in files {
                let source = try String(contentsOfFile: Self.root + "/" + path + "/" + file, encoding: .utf8)
                for line in Self.matches(#"^(@testable )?import \w+$"#, in: source) {
                    let module = String(line.split(separator: " ").last!)
                    if modules.contains(module), !named.contains(module) { found.append("\(name): \(file) imports \(module)") }
                }
            }
        }
        #expect(found.isEmpty, "imports of modules the target does not name: \(found)")
        // And what a target names is closed: it names everything that what it names names in turn (the Swift
        // layers; a C module, CSpool and the like, is named by what imports it).
        let names = Dictionary(uniqueKeysWithValues: targets.compactMap { target -> (String, Set<String>)? in
            guard let name = target["name"] as? String else { return nil }
            return (name, Set(((target["dependencies"] as? [[String: Any]]) ?? []).compactMap {
                (($0["target"] ?? $0["byName"]) as? [Any])?.first as? String
            }))
        })
        var open: [String] = []
        for (name, named) in names {
            for dependency in named {
                let missing = (names[dependency] ?? []).subtracting(named).filter { $0.hasPrefix("Spool") }
                if !missing.isEmpty { open.append("\(name) names \(dependency) but not \(missing.sorted())") }
            }
        }
        #expect(open.isEmpty, "targets that do not name their whole closure: \(open)")
    }
}
