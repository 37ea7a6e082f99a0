import Foundation
import Glibc
import SpoolTestSupport
import Testing
@testable import Spool
@testable import SpoolSystem
@testable import SpoolTransport
@testable import SpoolNames
@testable import SpoolDocument
@testable import SpoolConfiguration
@testable import SpoolQueue
@testable import SpoolHandlers
@testable import SpoolSending
@testable import SpoolReporting
@testable import SpoolControl

/// One spool on a GlusterFS volume, three "hosts" (own host name by `unshare -u`, own mount) producing and
/// sending at once; one host killed outright with claims in cur/; one cut off (`SharedSpoolScenario`).
/// Opt-in: SPOOL_GLUSTER=1.
@Suite(.enabled(if: GlusterCluster.available, "needs SPOOL_GLUSTER=1, root, glusterfs-server and FUSE"), .serialized)
struct SharedSpoolTests {
    static let unbuilt: Comment = "the GlusterFS cluster could not be built (its reason is printed above)"

    @Test func threeHostsShareOneSpool() throws {
        let cluster = try #require(GlusterCluster.build(), Self.unbuilt)
        try SharedSpoolScenario(cluster: cluster).threeHostsShareOneSpool()
    }

    @Test func aDeadHostsClaimsAreReturnedAfterTheLease() throws {
        let cluster = try #require(GlusterCluster.build(), Self.unbuilt)
        try SharedSpoolScenario(cluster: cluster).aDeadHostsClaimsAreReturnedAfterTheLease()
    }

    /// A client cut off from every brick gets ENOTCONN.
    @Test(
        .enabled(
            if: GlusterCluster.partitionUnavailable == nil,
            "needs nftables to cut one host off: \(GlusterCluster.partitionUnavailable ?? "")"))
    func aPartitionedHostClaimsNothingAndTheOthersTakeOver() throws {
        let cluster = try #require(GlusterCluster.build(partitionable: true), Self.unbuilt)
        try SharedSpoolScenario(cluster: cluster).aPartitionedHostClaimsNothingAndTheOthersTakeOver(
            rejoin: .sameMount(errno: "ENOTCONN"))
    }
}
