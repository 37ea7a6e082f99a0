import Foundation
import Glibc
@testable import Spool
@testable import SpoolSystem
@testable import SpoolTransport
@testable import SpoolNames
@testable import SpoolDocument
@testable import SpoolConfiguration
@testable import SpoolQueue
@testable import SpoolHandlers
@testable import SpoolSending
@testable import SpoolReporting
@testable import SpoolControl

/// A spool in a fresh temporary directory, removed when the test is done with it.
final class TemporarySpool {
    let directory: String
    let path: String

    /// A spool in a new folder of `parent` (`/tmp` unless said: a test's own mount, say).
    init(in parent: String = "/tmp") {
        directory = makeTemporaryDirectory("spool-test", in: parent)
        path = directory + "/spool"
        _ = try! Spool(path: path)
    }

    deinit {
        _ = try? FileManager.default.removeItem(atPath: directory)
    }

    func open() throws -> Spool { try Spool(path: path) }

    /// Names in a folder, hidden ones excluded, sorted.
    func names(_ folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "\(path)/\(folder)")) ?? []).filter {
            !$0.hasPrefix(".")
        }.sorted()
    }

    /// Names in a folder that are operations (not `.why` reasons).
    func operations(_ folder: String) -> [String] { names(folder).filter { !$0.hasSuffix(".why") } }

    func read(_ folder: String, _ name: String) -> String {
        (try? String(contentsOfFile: "\(path)/\(folder)/\(name)", encoding: .utf8)) ?? ""
    }

    /// Writes a file straight into a folder, the way a producer (or an attacker) would.
    func drop(_ folder: String, _ name: String, _ contents: String, modified: Date? = nil) {
        let file = "\(path)/\(folder)/\(name)"
        _ = FileManager.default.createFile(atPath: file, contents: Data(contents.utf8))
        if let modified { try! FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: file) }
    }
}

/// A new directory `PARENT/PREFIX-XXXXXX` (in `/tmp` unless said), mode 0700; the caller removes it.
func makeTemporaryDirectory(_ prefix: String, in parent: String = "/tmp") -> String {
    var template = Array("\(parent)/\(prefix)-XXXXXX".utf8CString)
    let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) != nil }
    precondition(made, "mkdtemp failed")
    return String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
