import Dispatch
import Foundation
import Glibc
import Testing
@testable import SpoolQueue
@testable import SpoolSystem

/// A spool opens each folder the first time it is needed (`Spool.directory`), once, whichever thread asks
/// first, and only the folder it found when it was opened.
@Suite struct FolderOpeningTests {
    @Test func threadsAskingAtOnceGetOneDescriptor() throws {
        let temporary = TemporarySpool()
        let spool = try temporary.open()
        let seen = Locked<Set<Int32>>([])
        // Eight threads race to the first opening of each folder; a TSan run of this test also checks the lock.
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for folder in Spool.Folder.allCases {
                let descriptor = spool.directory(folder).rawValue
                seen.withLock { _ = $0.insert(descriptor) }
            }
        }
        let descriptors = seen.withLock { $0 }
        #expect(descriptors.count == Spool.Folder.allCases.count, "one descriptor per folder: \(descriptors)")
        #expect(!descriptors.contains(-1), "every folder opened: \(descriptors)")
        withExtendedLifetime(temporary) {}
    }

    @Test func aFolderReplacedBeforeItsFirstUseIsNotTaken() throws {
        let temporary = TemporarySpool()
        let spool = try temporary.open()
        // A folder put in the place of `failed/` after the worker started (made while the old one still stands,
        // so that it cannot reuse its inode): not the one the spool was opened with, refused on every use.
        try FileManager.default.createDirectory(atPath: temporary.path + "/other", withIntermediateDirectories: false)
        #expect(rename(temporary.path + "/other", temporary.path + "/failed") == 0)
        #expect(spool.directory(.failed).rawValue == -1)
        #expect(spool.directory(.failed).rawValue == -1)
        #expect(spool.directory(.cur).rawValue >= 0)
        withExtendedLifetime(temporary) {}
    }
}
