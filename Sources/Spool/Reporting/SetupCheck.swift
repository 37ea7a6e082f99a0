import Glibc
import SpoolConfiguration
import SpoolDocument
import SpoolHandlers
import SpoolNames
import SpoolQueue
import SpoolSystem
import SpoolTransport

/// What `spool-ctl check` finds wrong outside the spool, in what spool-send would read at send time: the TLS
/// files spool.conf(5) names, each auth profile (its mode, its lines, the files it names) and each program in
/// the handler directory. Each problem is one line naming the file, so that an admin fixes it before the
/// first operation needs it.
package struct SetupCheck: Sendable {
    /// Everything found, as `SpoolCheck.Finding`s; empty when all is usable.
    package private(set) var findings: [SpoolCheck.Finding] = []

    /// Checks the TLS files of `configuration` (read from `path`), the profiles in `credentials` and the
    /// programs in `handlers`, each when given.
    package init(
        configuration: SpoolConfiguration?, path: String?, credentials: Credentials?, handlers: HandlerDirectory?
    ) {
        if let configuration, let problem = TLSFileCheck.firstProblem(in: configuration, path: path) {
            findings.append(SpoolCheck.Finding(path: problem.path, problem: problem.description))
        }
        if let credentials { checkProfiles(credentials) }
        if let handlers { checkHandlers(handlers) }
    }

    /// Checks each auth profile in `credentials`: that it loads, and that the TLS files it names are usable.
    package mutating func checkProfiles(_ credentials: Credentials) {
        let names = credentials.profileNames()
        if names.isEmpty,
            (try? FileDescriptor.currentDirectory.status(of: FileName(credentials.directory)))?.isDirectory != true
        {
            findings.append(
                SpoolCheck.Finding(
                    path: credentials.directory, problem: "the auth directory is not a directory that can be read"))
            return
        }
        for name in names {
            let path = "\(credentials.directory)/\(name)"
            do {
                let profile = try credentials.profile(name)
                if profile.origins.isEmpty {
                    let error = CredentialError.noOrigin(path: path, example: "https://api.example.com")
                    findings.append(SpoolCheck.Finding(path: path, problem: error.description))
                }
                for problem in TLSFileCheck.problems(in: profile, name: path) {
                    findings.append(SpoolCheck.Finding(path: problem.path, problem: problem.description))
                }
            } catch {
                findings.append(SpoolCheck.Finding(path: path, problem: error.description))
            }
        }
    }

    /// Checks that each program in the handler directory may be run, as `HandlerDirectory.program` judges it.
    package mutating func checkHandlers(_ handlers: HandlerDirectory) {
        guard let directory = try? FileDescriptor.currentDirectory.open(FileName(handlers.path), O_RDONLY | O_DIRECTORY)
        else {
            findings.append(
                SpoolCheck.Finding(
                    path: handlers.path, problem: "the handler directory is not a directory that can be read"))
            return
        }
        defer { directory.close() }
        for name in ((try? directory.entries()) ?? []).filter({ !$0.isHidden }).compactMap(\.string).sorted() {
            do { _ = try handlers.program(name) } catch {
                findings.append(SpoolCheck.Finding(path: "\(handlers.path)/\(name)", problem: error.description))
            }
        }
    }
}
