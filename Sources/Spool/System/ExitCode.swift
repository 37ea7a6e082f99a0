/// Exit codes from sysexits.h.
public enum ExitCode {
    /// Success.
    public static let success: Int32 = 0
    /// Some check or operation found a problem (not a sysexits code).
    public static let failure: Int32 = 1
    /// The command was used incorrectly.
    public static let usage: Int32 = 64
    /// The input data was incorrect.
    public static let dataError: Int32 = 65
    /// An input file did not exist or was not readable.
    public static let noInput: Int32 = 66
    /// An internal software error.
    public static let software: Int32 = 70
    /// An output file or directory cannot be created.
    public static let cannotCreate: Int32 = 73
    /// An error occurred while doing I/O.
    public static let ioError: Int32 = 74
    /// Temporary failure; the user is invited to retry.
    public static let temporaryFailure: Int32 = 75
    /// Something was found in an unconfigured or misconfigured state.
    public static let configuration: Int32 = 78
}
