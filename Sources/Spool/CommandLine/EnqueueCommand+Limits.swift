import Glibc
import SpoolConfiguration
import SpoolQueue
import SpoolSystem

/// Set-group-ID, spool-enqueue works for a caller who chose its command line and environment: its limits
/// may only be tightened, never loosened, as Postfix's postdrop takes none from its caller.
extension EnqueueCommand {
    /// This command with the limits that hold for its caller: set-group-ID, the administrator's, which its
    /// options and variables only tighten, and the host's producer policy; else the policy of the spool.conf
    /// `SPOOL_CONFIG` names, if it can be read. Throws when the host's files exist but cannot be used.
    package func withLimitsInForce() throws(ConfigurationError) -> EnqueueCommand {
        if Environment.isSecure {
            let configuration = try EnqueueCommand.administratorConfiguration()
            return tightened(by: configuration).keepingToPolicy(of: configuration)
        }
        // The caller's own choice of spool.conf: its producer policy's limits, where it drops into a shared spool.
        guard let path = SpoolConfiguration.defaultPath(option: nil),
              let configuration = try? SpoolConfiguration.load(path: path)
        else { return self }
        return keepingToPolicy(of: configuration)
    }

    /// This command with each limit the administrator's (`configuration`'s, else the built-in default), or the
    /// caller's where the caller gave a tighter one: a larger `--min-free`, a smaller `--max-queue`,
    /// `--max-payload` or `--max-size`.
    package func tightened(by configuration: SpoolConfiguration) -> EnqueueCommand {
        var command = self
        let defaults = QueueLimits()
        let minFree = configuration.minFreeBytes ?? defaults.minFreeBytes
        let maxQueue = configuration.maxQueue ?? defaults.maxCount
        let maxPayload = configuration.maxPayload ?? Spool.defaultMaxPayloadSize
        let given = givenLimits
        command.limits.minFreeBytes = given.contains("--min-free") ? max(limits.minFreeBytes, minFree) : minFree
        command.limits.maxCount = given.contains("--max-queue") ? min(limits.maxCount, maxQueue) : maxQueue
        command.maxPayload = given.contains("--max-payload") ? min(self.maxPayload, maxPayload) : maxPayload
        command.maxSize = min(maxSize, Spool.defaultMaxDocumentSize)
        return command
    }

    /// The administrator's settings a set-group-ID spool-enqueue keeps to: the host's spool.conf(5) and the
    /// producer policy it names, whatever `SPOOL_CONFIG` says, or none when it does not exist. A file that
    /// exists but cannot be used stops the enqueue (exit 78): a limit is never guessed.
    package static func administratorConfiguration() throws(ConfigurationError) -> SpoolConfiguration {
        let bytes: [UInt8]
        do { bytes = try SpoolConfiguration.readAdministratorFile(SpoolConfiguration.hostPath) } catch {
            if case .unreadable(_, .noSuchFileOrDirectory) = error { return SpoolConfiguration() }
            throw error
        }
        var configuration = try SpoolConfiguration.parse(
            String(decoding: bytes, as: UTF8.self), path: SpoolConfiguration.hostPath)
        if let policy = configuration.producerPolicyPath {
            configuration.producerPolicy = try ProducerPolicy.load(path: policy)
        }
        return configuration
    }

    /// This command with its caller's limits in the producer policy of `configuration` (`queue`, `bytes`),
    /// which hold where the caller drops into a spool many users share.
    package func keepingToPolicy(of configuration: SpoolConfiguration) -> EnqueueCommand {
        var command = self
        let rights = configuration.producerPolicy.rights(of: UserDatabase.user(UserDatabase.effectiveUser))
        command.limits.producerMaxWaiting = rights.maxWaiting
        command.limits.producerMaxBytes = rights.maxBytes
        command.limits.policyPath = configuration.producerPolicyPath
        return command
    }
}
