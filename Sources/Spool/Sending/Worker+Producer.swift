import SpoolConfiguration
import SpoolDocument
import SpoolSystem

extension Worker {
    /// The rights of whoever dropped `operation` under the producer policy (spool.conf's `producers`), or nil
    /// when the spool's owner or root did, who keep today's rules. An operation whose producer is unknown gets
    /// the rights of nobody in particular (the `*` lines).
    package func rights(of operation: Operation) -> ProducerPolicy.Rights? {
        guard let uid = operation.producer else {
            let nobody = SystemUser(uid: UInt32.max, name: nil, groups: [])
            return limits.withConfiguration { $0.producerPolicy.rights(of: nobody) }
        }
        guard spool.users.isProducer(uid) else { return nil }
        if let known = producerRights.withLock({ $0[uid] }) { return known }
        let user = UserDatabase.user(uid)
        let rights = limits.withConfiguration { $0.producerPolicy.rights(of: user) }
        producerRights.withLock { $0[uid] = rights }
        return rights
    }
}
