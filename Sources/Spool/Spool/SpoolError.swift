import SpoolSystem

/// Why a spool directory cannot be used. Each description names the path and says what to do.
package enum SpoolError: Error, CustomStringConvertible {
    case symbolicLink(path: String)
    case notADirectory(path: String)
    case cannotCreate(path: String, Errno)
    case cannotOpen(path: String, Errno)
    case otherFileSystem(path: String, spool: String)
    case io(path: String, Errno)
    case notWritable(path: String, Errno)
    /// A reader or the sender was pointed at a path that is not a spool: nothing there, or a directory
    /// without the folder `missing`.
    case noSuchSpool(path: String, missing: String?)

    /// The message naming the path and what to do about it.
    package var description: String {
        switch self {
        case let .symbolicLink(path): "\(path) is a symbolic link; give the real directory with --spool or SPOOL_DIR"
        case let .notADirectory(path): "\(path) exists but is not a directory; move it away or choose another spool"
        case let .cannotCreate(path, error) where error == .noSuchFileOrDirectory:
            "cannot create \(path): its parent \(SpoolError.parent(of: path)) does not exist (a spool is made one "
                + "level deep: make the folders above it first)"
        case let .cannotCreate(path, error): "cannot create \(path): \(error)"
        case let .cannotOpen(path, error): "cannot open \(path): \(error)"
        case let .otherFileSystem(path, spool):
            "\(path) is on another file system than \(spool); every spool folder must be on one file system so that "
                + "moves are atomic renames"
        case let .io(path, error): "\(path): \(error)"
        case let .notWritable(path, error):
            "\(path) cannot be written (\(error)); nothing was moved. Remount it read-write or run as the spool's owner"
        case let .noSuchSpool(path, nil):
            "no spool at \(path): check the path, or create the spool with 'spool-ctl --spool \(path) init'"
        case let .noSuchSpool(path, missing?):
            "\(path) is not a spool (it has no \(missing)/): check the path, or complete it with 'spool-ctl --spool "
                + "\(path) init'"
        }
    }

    /// The sysexits code for this error: 75 when the fault passes (open files, memory, a network file system
    /// out of reach), else 73 when the spool cannot be created, 66 when there is no spool at the path (nothing,
    /// or something that is not a directory), 74 otherwise.
    package var exitCode: Int32 {
        switch self {
        case let .cannotCreate(_, error), let .cannotOpen(_, error), let .io(_, error), let .notWritable(_, error):
            if error.faultClass.passes { return ExitCode.temporaryFailure }
            if case .cannotCreate = self { return ExitCode.cannotCreate }
            return ExitCode.ioError
        case .symbolicLink, .otherFileSystem:
            return ExitCode.ioError
        case .noSuchSpool, .notADirectory:
            // Not a spool, whatever is or is not at the path: one status.
            return ExitCode.noInput
        }
    }

    /// The folder that holds `path`, as given (`.` for a bare name).
    static func parent(of path: String) -> String {
        guard let slash = path.dropLast(path.hasSuffix("/") ? 1 : 0).lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
