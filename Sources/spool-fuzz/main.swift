// spool-fuzz: the fuzz targets of Fuzz/README.md. Built by Fuzz/run.sh with -D FUZZING and libFuzzer, it is a
// fuzzer (the target named by SPOOL_FUZZ_TARGET); built plainly, as the package builds it, it replays files:
// `spool-fuzz TARGET FILE...` runs each file through the target, which is how the corpus stays a regression test.
import Glibc
import Spool
import SpoolSystem

#if FUZZING
/// The target this fuzzer runs, read once.
let fuzzTarget: @Sendable ([UInt8]) -> Void = {
    let name = Environment.value("SPOOL_FUZZ_TARGET") ?? ""
    guard let target = FuzzTargets.all[name] else {
        fatalError("SPOOL_FUZZ_TARGET must name one of: \(FuzzTargets.all.keys.sorted().joined(separator: ", "))")
    }
    return target
}()

/// libFuzzer's call for one input: runs its bytes (none when `data` is nil) through `fuzzTarget`.
@_cdecl("LLVMFuzzerTestOneInput")
package func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzTarget(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}

/// libFuzzer's driver, which its own `main` would call.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// The entry SwiftPM links an executable target with (it renames `main` to `<target>_main`): it hands over
/// to libFuzzer.
@_cdecl("spool_fuzz_main")
package func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var (count, vector) = (argc, argv)
    return runFuzzerDriver(&count, &vector) { data, size in fuzzOneInput(data, size) }
}
#else
// A declaration, not a statement: the fuzzer's build parses this file as a library, inactive branch included.
let replayed: Void = replay(Array(CommandLine.arguments.dropFirst()))
#endif

/// Runs each file named after the target through it; a broken invariant traps, as under the fuzzer.
func replay(_ arguments: [String]) {
    guard let name = arguments.first, let target = FuzzTargets.all[name] else {
        let names = FuzzTargets.all.keys.sorted().joined(separator: " | ")
        Program.printError("usage: spool-fuzz \(names) FILE...\n")
        exit(ExitCode.usage)
    }
    for path in arguments.dropFirst() {
        guard let file = fopen(path, "rb") else {
            Program.fail("spool-fuzz", "cannot open \(path)", code: ExitCode.noInput)
        }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = fread(&buffer, 1, buffer.count, file)
            if n <= 0 { break }
            bytes += buffer[0..<n]
        }
        fclose(file)
        target(bytes)
    }
}
