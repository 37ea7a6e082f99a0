import SpoolConfiguration
import SpoolSending
import SpoolSystem

/// A watcher told to read its settings again (SIGHUP, `systemctl reload`), as Postfix's master rereads
/// main.cf: spool.conf(5), the producer policy it names and the auth profiles, checked exactly as at start.
extension SendCommand {
    /// Reads the settings again and puts them in use in `worker`, telling systemd through `service`; a file
    /// that cannot be used keeps the settings in use, and the warning says where it is broken. What the
    /// origins taught (rates, pauses, probes) is kept either way.
    package func reload(_ worker: Worker, service: ServiceStatus?, log: Log) {
        service?.reloading()
        defer { service?.reloaded() }
        let configuration: SpoolConfiguration
        do { configuration = try readConfiguration() } catch {
            log.warning("not reloaded: \(error); the settings in use are kept", LogFields(.notReloaded))
            return
        }
        if let problem = leaseProblem(configuration)?.description ?? unusableFile(configuration) {
            log.warning("not reloaded: \(problem); the settings in use are kept", LogFields(.notReloaded))
            return
        }
        worker.reconfigure(configuration)
        log.notice("reloaded \(SpoolConfiguration.defaultPath(option: configurationPath) ?? "the settings")",
                   LogFields(.reloaded))
    }
}
