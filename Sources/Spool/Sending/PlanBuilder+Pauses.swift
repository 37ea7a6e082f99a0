import SpoolNames

/// The pauses a plan honours from names alone: an origin paused in `.origins` (by the server, a quota,
/// spool's pace or a down origin's backoff) is known by the hash its operations' names carry (`h=`).
extension PlanBuilder {
    /// `pauses` (origin, end) by the origin hash names carry.
    package static func byHash(_ pauses: [(origin: String, until: Int64)])
        -> [UInt32: (origin: String, until: Int64)]
    {
        Dictionary(
            pauses.map { (OrderingKey.originHash($0.origin), $0) },
            uniquingKeysWith: { a, b in a.until > b.until ? a : b })
    }
}
