import Glibc
import SpoolConfiguration
import SpoolControl
import SpoolDocument
import SpoolHandlers
import SpoolNames
import SpoolQueue
import SpoolReporting
import SpoolSending
import SpoolSystem
import SpoolTransport

/// What `spool-send` reads, checks and opens before it moves anything: spool.conf(5), the TLS files, the
/// open-file limit and the spool; each stops it with its sysexits status when it cannot be used.
extension SendCommand {
    /// spool.conf(5) as spool-send uses it: read from `--config` or `SPOOL_CONFIG` (none: no settings), the
    /// command line's `--cacert`, `--proxy`, `--noproxy` and `--http1.1` over its `[default]` section (an
    /// origin's own section goes over them), and its handler directory and largest payload as the command line
    /// and the environment override them. Read at start and on a watcher's SIGHUP.
    package func readConfiguration() throws(ConfigurationError) -> SpoolConfiguration {
        var configuration = SpoolConfiguration()
        if let path = SpoolConfiguration.defaultPath(option: configurationPath) {
            configuration = try SpoolConfiguration.load(path: path)
        }
        var given = OriginSettings()
        given.caFile = transport.caFile
        given.proxy = transport.proxy
        given.noProxy = transport.noProxy
        if transport.version == .http1_1 { given.version = .http1_1 }
        given.warnAfterSeconds = warnAfterSeconds
        given.maxSendBytesPerSecond = transport.maxSendBytesPerSecond
        configuration.defaults = given.over(configuration.defaults)
        if maxPayloadGiven { configuration.maxPayload = options.maxPayload }
        configuration.handlerDirectory = HandlerDirectory.defaultPath(
            option: handlerDirectory, configured: configuration.handlerDirectory)
        return configuration
    }

    /// Reads spool.conf(5) (`readConfiguration`); exits 78 (EX_CONFIG) when it cannot be used, before anything
    /// is moved.
    package mutating func loadConfiguration() {
        do { options.configuration = try readConfiguration() } catch {
            Program.fail(SendCommand.program, "\(error); nothing was sent", code: ExitCode.configuration)
        }
        if let problem = leaseProblem(options.configuration) {
            Program.usageFailure(SendCommand.program, problem, usage: SendCommand.usage)
        }
    }

    /// Why `--lease` is too short for `configuration`'s handlers: a handler may run this long past `--timeout`
    /// before it is given up, and no other host may take its job meanwhile.
    package func leaseProblem(_ configuration: SpoolConfiguration) -> UsageError? {
        guard configuration.handlerDirectory != nil, let lease = leaseSeconds,
            Double(lease) <= transport.timeoutSeconds + HandlerProcess.longestOverrunSeconds
        else { return nil }
        return .invalidValue(
            option: "--lease", value: "\(lease)",
            expected: "with handlers, a duration longer than --timeout plus "
                + "\(Int(HandlerProcess.longestOverrunSeconds))s")
    }

    /// Exits 78 (EX_CONFIG), before anything is moved, when `unusableFile` finds a problem.
    package func requireUsableProfiles() {
        if let problem = unusableFile(options.configuration) {
            Program.fail(SendCommand.program, "\(problem); nothing was sent", code: ExitCode.configuration)
        }
    }

    /// The first TLS file named by the command line, `configuration` or an auth profile that cannot be used,
    /// or a profile that names no origin: otherwise every https operation would spend an attempt on a TLS error,
    /// and a profile bound to nothing would wait for a line nobody is told to add. A profile that cannot be
    /// read at all is left to send time, where only its operations wait.
    package func unusableFile(_ configuration: SpoolConfiguration) -> String? {
        var problem = TLSFileCheck.firstProblem(
            in: configuration, path: SpoolConfiguration.defaultPath(option: configurationPath)
        )?.description
        if problem == nil, let credentials = options.credentials {
            for (name, profile) in credentials.readableProfiles() {
                let path = "\(credentials.directory)/\(name)"
                if profile.origins.isEmpty {
                    problem = CredentialError.noOrigin(path: path, example: "https://api.example.com").description
                } else {
                    problem = TLSFileCheck.problems(in: profile, name: path).first?.description
                }
                if problem != nil { break }
            }
        }
        return problem
    }

    /// Makes sure the open-file limit leaves room for `concurrency` requests, raising the soft limit up to
    /// the hard one if needed; exits 75 when even that is too low, before anything is moved.
    package func requireDescriptors() {
        let needed = SendCommand.descriptorsNeeded(concurrency: options.concurrency, threads: transport.threads)
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < needed else {
            return
        }
        if limit.rlim_max >= needed {
            limit.rlim_cur = needed
            if setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 { return }
        }
        Program.fail(
            SendCommand.program,
            "the open-file limit is \(limit.rlim_cur) (ulimit -n), and sending with --concurrency "
                + "\(options.concurrency) needs \(needed); raise the limit or lower --concurrency. Nothing was moved",
            code: ExitCode.temporaryFailure)
    }

    /// Descriptors a sender needs: the spool's folders and lock, the runtime's own, and per request a
    /// connection, a document and, while connecting, libcurl's resolver socketpair and a second address
    /// family's attempt; and per sending thread the socketpair that wakes its multi handle.
    package static func descriptorsNeeded(concurrency: Int, threads: Int) -> rlim_t {
        rlim_t(32 + 4 * concurrency + 2 * threads)
    }

    /// Opens the spool named on the command line, or exits 66/74 with the reason: the sender never makes a
    /// spool, so a mistyped `--spool` in a cron line fails every run instead of watching an empty one.
    package func openSpool() -> Spool {
        do {
            let opened = try Spool(path: Spool.defaultPath(option: spool), create: false)
            try opened.requireWritable()
            return opened
        } catch {
            Program.fail(SendCommand.program, error.description, code: error.exitCode)
        }
    }
}
