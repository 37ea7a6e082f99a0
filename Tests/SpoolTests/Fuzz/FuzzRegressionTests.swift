import Foundation
import Testing

/// Every input the fuzzers ever crashed on (Tests/Corpus/fuzz/TARGET/), replayed through its target by
/// `spool-fuzz TARGET FILE...` as the package builds it: a broken invariant traps, and the run fails.
@Suite struct FuzzRegressionTests {
    static let regressions = Repository.root + "/Tests/Corpus/fuzz"

    @Test func everyFoundCrashStaysFixed() throws {
        let targets = try FileManager.default.contentsOfDirectory(atPath: Self.regressions).sorted()
        #expect(!targets.isEmpty, "no regression folders under \(Self.regressions)")
        for target in targets {
            let files = try FileManager.default.contentsOfDirectory(atPath: "\(Self.regressions)/\(target)").sorted()
                .map { "\(Self.regressions)/\(target)/\($0)" }
            let run = try Command.run("spool-fuzz", [target] + files)
            #expect(run.status == 0, "\(target): \(run.stderr)")
        }
        // The replayer fails on a target it does not know, so a renamed target cannot pass unseen.
        #expect(try Command.run("spool-fuzz", ["no-such-target"]).status == 64)
    }
}
