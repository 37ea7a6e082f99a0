import SpoolNames
import SpoolSystem

/// Lanes where producers drop: each producer's names form lanes of their own (spool(5), A spool for many
/// users), so that a name written into another's order holds back only its owner's.
extension Spool {
    /// The lane of a name with key hash `keyHash` in `folder`: the key hash itself, set apart by its owner
    /// when a producer's file has it; nil when the name is gone (renamed or removed since it was listed).
    /// Why: the name is the producer's to write, and only reading the document shows whether its `k=` is
    /// theirs; a name written into another's order, held (`s=held`), not due (`t=`) or of a paused origin
    /// (`h=`), would otherwise hold that order back unread. Apart, it holds only its own lane. One status a
    /// name, and only where producers may drop (`takesProducerDrops`); a status that fails otherwise fails
    /// the listing: a name of unknown owner may join no lane.
    package func laneKey(_ keyHash: UInt64, of name: UnsafeBufferPointer<UInt8>, in folder: Folder) throws(Errno)
        -> UInt64?
    {
        try lane(keyHash, of: name, in: folder)?.key
    }

    /// `laneKey`, with the producer whose lane it is (nil: the owner's and root's) and the file's size (0
    /// where producers do not drop: it is not looked at then).
    package func lane(_ keyHash: UInt64, of name: UnsafeBufferPointer<UInt8>, in folder: Folder) throws(Errno)
        -> (key: UInt64, producer: UInt32?, size: Int)?
    {
        guard users.takesProducerDrops else { return (keyHash, nil, 0) }
        return try lane(keyHash, of: FileName(bytes: Array(name)), in: folder)
    }

    /// `laneKey` of a name already made.
    package func laneKey(_ keyHash: UInt64, of name: FileName, in folder: Folder) throws(Errno) -> UInt64? {
        try lane(keyHash, of: name, in: folder)?.key
    }

    /// `lane` of a name already made.
    package func lane(_ keyHash: UInt64, of name: FileName, in folder: Folder) throws(Errno)
        -> (key: UInt64, producer: UInt32?, size: Int)?
    {
        guard users.takesProducerDrops else { return (keyHash, nil, 0) }
        do throws(Errno) {
            let status = try directory(folder).status(of: name)
            let producer = users.producer(owner: status.owner, name: name)
            return (laneKey(keyHash, producer: producer), users.keyScope(of: producer), status.size)
        } catch .noSuchFileOrDirectory {
            return nil
        }
    }

    /// The lane of key hash `keyHash` dropped by `producer`.
    package func laneKey(_ keyHash: UInt64, producer: UInt32?) -> UInt64 {
        guard users.takesProducerDrops, let scope = users.keyScope(of: producer) else { return keyHash }
        // Keyed with a secret of this process: a producer who could compute it could choose a `k=` whose lane
        // is another's.
        var hasher = Hasher()
        hasher.combine(Spool.laneSecret)
        hasher.combine(keyHash)
        hasher.combine(scope)
        return UInt64(bitPattern: Int64(hasher.finalize()))
    }

    /// Drawn once a process from the system's random source (not Swift's hashing seed, which
    /// `SWIFT_DETERMINISTIC_HASHING` fixes).
    private static let laneSecret: UInt64 = {
        var generator = SystemRandomNumberGenerator()
        return generator.next()
    }()
}
