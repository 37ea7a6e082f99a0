import Testing
@testable import SpoolSystem

/// The log's levels order quiet < normal < verbose, which is what decides whether a message is written.
/// (Log writes to the process's standard error only, so what it writes is not captured here.)
@Suite struct LogTests {
    @Test func levelsAreOrderedFromQuietToVerbose() {
        #expect(Log.Level.quiet < .normal)
        #expect(Log.Level.normal < .verbose)
        #expect(Log.Level.quiet < .verbose)
        #expect(!(Log.Level.verbose < .normal))
        #expect(!(Log.Level.normal < .normal))
        #expect(Log.Level.verbose >= .normal && Log.Level.normal >= .normal && !(Log.Level.quiet >= .normal))
        #expect([Log.Level.verbose, .quiet, .normal].sorted() == [.quiet, .normal, .verbose])
    }

    @Test func aLogIsNormalUnlessToldAndSilentSaysNothing() {
        let log = Log(program: "spool-send")
        #expect(log.program == "spool-send" && log.level == .normal)
        #expect(Log(program: "spool-ctl", level: .verbose).level == .verbose)
        // An empty program name is what makes `write` return before writing, whatever the level.
        #expect(Log.silent.program.isEmpty && Log.silent.level == .quiet)
    }
}
