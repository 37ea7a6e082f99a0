import Foundation
import Glibc
import SpoolTestSupport

/// The result of running one of the package's programs.
struct CommandResult {
    let status: Int32
    let stdout: String
    let stderr: String
    var lines: [String] { stdout.split(separator: "\n").map(String.init) }
}

/// Runs the package's built programs as real processes.
enum Command {
    /// The folder holding the built products: beside the test bundle.
    static let products: String = {
        let exe =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var url = URL(fileURLWithPath: exe).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: url.appendingPathComponent("spool-enqueue").path), url.path != "/"
        {
            url = url.deletingLastPathComponent()
        }
        return url.path
    }()

    static func path(_ program: String) -> String { "\(products)/\(program)" }

    /// Starts a program without waiting for it.
    static func start(_ program: String, _ arguments: [String], environment: [String: String] = [:], stdin: Data? = nil,
                      workingDirectory: String? = nil) throws -> (Process, Pipe, Pipe) {
        _ = TestServer.ignoreBrokenPipes
        let process = Process()
        if let workingDirectory { process.currentDirectoryURL = URL(fileURLWithPath: workingDirectory) }
        process.executableURL = URL(fileURLWithPath: program.hasPrefix("/") ? program : path(program))
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "SPOOL_DIR")
        // Test traffic stays on loopback: a proxy set for the machine running the tests is not used.
        for name in [
            "http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY",
            "SPOOL_CA_FILE"
        ] {
            env.removeValue(forKey: name)
        }
        env.merge(environment) { $1 }
        process.environment = env
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let input = Pipe()
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try? input.fileHandleForWriting.close()
        return (process, out, err)
    }

    /// Runs a program to completion.
    /// A program still running after `timeout` seconds is killed, and its status shows it (SIGKILL: 9),
    /// so a hang fails the test instead of stalling the run.
    @discardableResult
    static func run(
        _ program: String, _ arguments: [String], environment: [String: String] = [:], stdin: Data? = nil,
        timeout: Double = 120, workingDirectory: String? = nil
    ) throws -> CommandResult {
        let (process, out, err) = try start(
            program, arguments, environment: environment, stdin: stdin, workingDirectory: workingDirectory)
        let pid = process.processIdentifier
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [weak process] in
            if process?.isRunning == true { kill(pid, SIGKILL) }
        }
        // Read both pipes before waiting, so a chatty program cannot fill a pipe and stall.
        let errBox = DataBox()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            errBox.data = err.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        let errData = errBox.data
        process.waitUntilExit()
        return CommandResult(
            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }
}

/// Carries bytes read on another thread; the DispatchGroup orders the write before the read.
final class DataBox: @unchecked Sendable {
    var data = Data()
}
