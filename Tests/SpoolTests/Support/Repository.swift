import Foundation

/// The checkout the tests run from, for files they read beside the code: man pages, `bin/`, shims.
enum Repository {
    /// The repository's top folder (this file is `Tests/SpoolTests/Support/Repository.swift`).
    static let root: String = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path
}
