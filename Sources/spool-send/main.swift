import Glibc
import Spool

// Interim: the housekeeping half of the worker (recovery, tmp/ cleanup, admission of dropped files).
let program = "spool-send"
var arguments = Arguments()
var spoolOption: String?
while let token = arguments.next() {
    switch token {
    case .option("--spool"): spoolOption = try arguments.value(for: "--spool")
    case .option("--once"): break
    default: Program.usageFailure(program, .unknownOption("\(token)"), usage: "spool-send [--spool DIR] [--once]")
    }
}
let log = Log(program: program)
do {
    let spool = try Spool(path: Spool.defaultPath(option: spoolOption))
    try spool.recoverStaleClaims(lease: 300, log: log)
    try spool.cleanTemporaryFiles(log: log)
    try spool.scanNew(log: log) { _ in }
} catch let error as SpoolError {
    Program.fail(program, error.description, code: error.exitCode)
}
