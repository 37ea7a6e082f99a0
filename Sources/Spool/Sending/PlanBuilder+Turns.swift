import SpoolNames

/// The turns of a spool many users drop into: each producer's due lanes start in turn with the others', so
/// that one producer's thousand keys do not go before another's one.
extension PlanBuilder {
    /// Lanes already ranked, each producer's taking turns within a priority: every producer's first lane
    /// (the owner's and root's counting as one producer), then every one's second, … so that one producer's
    /// thousand keys do not go before another's one.
    static func inTurns(_ ranked: [(priority: Int, lane: [QueueEntry])], _ producers: [UInt64: UInt32])
        -> [[QueueEntry]]
    {
        var taken: [Int: [UInt32?: Int]] = [:]
        let turns = ranked.enumerated().map { index, ranked in
            let producer = producers[ranked.lane[0].laneKey]
            defer { taken[ranked.priority, default: [:]][producer, default: 0] += 1 }
            return (turn: taken[ranked.priority]?[producer] ?? 0, index: index)
        }
        return turns.sorted { a, b in
            let (pa, pb) = (ranked[a.index].priority, ranked[b.index].priority)
            return pa != pb ? pa > pb : (a.turn, a.index) < (b.turn, b.index)
        }.map { ranked[$0.index].lane }
    }
}
