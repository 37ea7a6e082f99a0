/// A file system that three "hosts" of this machine share a spool on: mounted three times, each mount its
/// own client; the third client can be cut off from the servers (`partition`) until `heal`.
protocol SharedCluster: AnyObject {
    /// The file system's name, for the figures a test prints.
    var engine: String { get }
    /// The three mounts, one per host.
    var mounts: [String] { get }
    /// The timeouts that decide how soon a cut-off client is noticed, for the figures.
    var timeouts: String { get }
    /// Cuts the third mount's client off from every server: nothing it sends arrives, and nothing tells it so.
    func partition() throws
    /// Ends the partition.
    func heal()
}
