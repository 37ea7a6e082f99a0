import Testing
@testable import SpoolSystem

/// Exit statuses are the numbers of sysexits.h that scripts and service managers test for.
@Suite struct ExitCodeTests {
    @Test func valuesAreTheSysexitsNumbers() {
        #expect(ExitCode.success == 0)
        #expect(ExitCode.failure == 1)
        #expect(ExitCode.usage == 64, "EX_USAGE")
        #expect(ExitCode.dataError == 65, "EX_DATAERR")
        #expect(ExitCode.noInput == 66, "EX_NOINPUT")
        #expect(ExitCode.software == 70, "EX_SOFTWARE")
        #expect(ExitCode.cannotCreate == 73, "EX_CANTCREAT")
        #expect(ExitCode.ioError == 74, "EX_IOERR")
        #expect(ExitCode.temporaryFailure == 75, "EX_TEMPFAIL")
        #expect(ExitCode.configuration == 78, "EX_CONFIG")
    }

    @Test func everyStatusIsDistinctAndFitsAnExitStatus() {
        let all = [ExitCode.success, ExitCode.failure, ExitCode.usage, ExitCode.dataError, ExitCode.noInput,
                   ExitCode.software, ExitCode.cannotCreate, ExitCode.ioError, ExitCode.temporaryFailure,
                   ExitCode.configuration]
        #expect(Set(all).count == all.count)
        #expect(all.allSatisfy { (0...255).contains($0) })
    }
}
