import Glibc
import Testing
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

/// The errno table: only the entry's content may file an operation.
@Suite struct ErrnoClassTests {
    @Test func onlyContentFilesAnOperation() {
        for error in [ELOOP, ENXIO, EISDIR, ENAMETOOLONG, EFBIG, EOVERFLOW] {
            #expect(Errno(rawValue: error).faultClass == .content, "\(Errno(rawValue: error).symbolicName)")
        }
        for error in [EMFILE, ENFILE, ENOMEM, ENOBUFS, EAGAIN, ENOSPC, EDQUOT] {
            let kind = Errno(rawValue: error).faultClass
            #expect(
                kind == .resource && kind.exitCode == 75 && !kind.stopsRun, "\(Errno(rawValue: error).symbolicName)")
        }
        for error in [EIO, EROFS, ENODEV, EBADF, EUCLEAN] {
            let kind = Errno(rawValue: error).faultClass
            #expect(
                kind == .storage && kind.exitCode == 74 && kind.stopsRun && !kind.passes,
                "\(Errno(rawValue: error).symbolicName)")
        }
        for error in [ENOTCONN, ESTALE, EHOSTDOWN, EBADFD] {
            let kind = Errno(rawValue: error).faultClass
            #expect(
                kind == .disconnected && kind.exitCode == 75 && kind.stopsRun && kind.passes,
                "\(Errno(rawValue: error).symbolicName)")
        }
        #expect(Errno(rawValue: EACCES).faultClass == .permission)
        #expect(Errno(rawValue: EPERM).faultClass == .permission)
        #expect(Errno(rawValue: ENOENT).faultClass == .vanished)
        #expect(Errno(rawValue: 4095).faultClass == .storage, "an unknown error never files an operation")
    }

    @Test func faultsSayWhatAndWhere() {
        let fault = SystemCallError("read", "spool/new/x", Errno(rawValue: ESTALE))
        #expect(fault.exitCode == 75)
        #expect(
            fault.description.contains("spool/new/x") && fault.description.contains("ESTALE")
                && fault.description.contains("stays where it is"))
        #expect(SystemCallError("read", "p", Errno(rawValue: EMFILE)).exitCode == 75)
        #expect(SystemCallError("read", "p", Errno(rawValue: EMFILE)).description.contains("ulimit -n"))
        #expect(SystemCallError("read", "p", Errno(rawValue: EIO)).exitCode == 74)
    }

    /// The advice for an unreachable network file system follows the one errno table, so the two cannot drift.
    @Test func everyDisconnectedErrorGetsTheNetworkAdvice() {
        let disconnected = ErrnoClass.table.filter { $0.1 == .disconnected }.map(\.0)
        #expect(disconnected.count >= 10)
        for error in disconnected {
            #expect(SystemCallError("read", "p", Errno(rawValue: error)).advice.contains("network file system"), "\(error)")
        }
        #expect(!SystemCallError("read", "p", Errno(rawValue: EIO)).advice.contains("network file system"))
    }

    @Test func aWatcherWaitsOutAnUnreachableFileSystemButNotAFailingOne() {
        var unreachable = FaultReport()
        unreachable.add(SystemCallError("claim", "p", Errno(rawValue: ENOTCONN)))
        unreachable.add(SystemCallError("read", "q", Errno(rawValue: EMFILE)))
        #expect(unreachable.stopsRun && !unreachable.endsWatcher && unreachable.exitCode == 75)
        var failing = unreachable
        failing.add(SystemCallError("claim", "p", Errno(rawValue: EIO)))
        #expect(failing.stopsRun && failing.endsWatcher && failing.exitCode == 74)
    }
}
