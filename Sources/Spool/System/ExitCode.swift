/// Exit codes from sysexits.h.
package enum ExitCode {
    /// Success.
    package static let success: Int32 = 0
    /// Some check or operation found a problem (not a sysexits code).
    package static let failure: Int32 = 1
    /// The command was used incorrectly.
    package static let usage: Int32 = 64
    /// The input data was incorrect.
    package static let dataError: Int32 = 65
    /// An input file did not exist or was not readable.
    package static let noInput: Int32 = 66
    /// An internal software error.
    package static let software: Int32 = 70
    /// An output file or directory cannot be created.
    package static let cannotCreate: Int32 = 73
    /// An error occurred while doing I/O.
    package static let ioError: Int32 = 74
    /// Temporary failure; the user is invited to retry.
    package static let temporaryFailure: Int32 = 75
    /// Something was found in an unconfigured or misconfigured state.
    package static let configuration: Int32 = 78
}
