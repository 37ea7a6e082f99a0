/// Sizes and repetitions: the full run, or `--quick` for CI smoke use.
struct Config {
    let quick: Bool
    /// `--large`: the growth case at a million.
    let large: Bool
    var repetitions: Int { quick ? 3 : 5 }
    var enqueueCount: Int { quick ? 500 : 5000 }
    var enqueueProcesses: Int { quick ? 100 : 500 }
    var batchCount: Int { quick ? 1000 : 10_000 }
    var claimCount: Int { quick ? 2000 : 10_000 }
    var deliveryCount: Int { quick ? 1000 : 5000 }
    var curlCount: Int { quick ? 100 : 300 }
    var idleRuns: Int { quick || large ? 10 : 20 }
    /// Operations not due in the idle case: a million with `--large`.
    var idleQueue: Int { large ? 1_000_000 : 10_000 }
    /// Queue sizes of the growth case, the first the baseline, and how many operations share a key.
    var growthSizes: (sizes: [Int], perKey: Int?) {
        if large { return ([10_000, 100_000, 1_000_000], 200) }
        return (quick ? [500, 5000] : [1000, 20_000], nil)
    }
    var drops: Int { quick ? 50 : 200 }
    /// Jobs in the handler case.
    var handlerJobs: Int { quick ? 300 : 2000 }
    /// The payload of the upload case, in bytes.
    var uploadBytes: Int { quick ? 64 << 20 : 256 << 20 }
    var wrkSeconds: Int { quick ? 1 : 3 }
    /// The spool's binaries: beside this one.
    let binaries: String
}
