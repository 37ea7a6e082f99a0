import Glibc

/// A user as the system's user database (passwd, group) knows it: who dropped an operation into a shared
/// spool, by the owner of its file, which a producer cannot forge.
package struct SystemUser: Sendable, Equatable {
    /// The numeric user id.
    package let uid: UInt32
    /// The login name; nil when the database has no entry for the id.
    package let name: String?
    /// The names of the groups the user is in: the primary one and every supplementary one.
    package let groups: [String]

    /// A user made of known parts (for the pure policy decision and its tests).
    package init(uid: UInt32, name: String?, groups: [String]) {
        self.uid = uid
        self.name = name
        self.groups = groups
    }

    /// How messages name the user: `alice (uid 1001)`, or `uid 1001` without a database entry.
    package var display: String { name.map { "\($0) (uid \(uid))" } ?? "uid \(uid)" }
}

/// Lookups in the system's user and group databases (getpwuid_r, getgrouplist, getgrgid_r).
package enum UserDatabase {
    /// The user with id `uid` and their groups; a user without an entry has a nil name and no groups.
    package static func user(_ uid: UInt32) -> SystemUser {
        guard let entry = passwordEntry(uid) else { return SystemUser(uid: uid, name: nil, groups: []) }
        return SystemUser(uid: uid, name: entry.name, groups: groupNames(of: entry.name, primary: entry.group))
    }

    /// How messages name `uid`: `alice (uid 1001)`, or `uid 1001` without a database entry.
    package static func display(_ uid: UInt32) -> String {
        SystemUser(uid: uid, name: name(of: uid), groups: []).display
    }

    /// The login name of `uid`, if it has one.
    package static func name(of uid: UInt32) -> String? { passwordEntry(uid)?.name }

    /// This process's effective user id.
    package static var effectiveUser: UInt32 { geteuid() }

    private static func passwordEntry(_ uid: UInt32) -> (name: String, group: gid_t)? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16 * 1024)
        guard getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0, result != nil, let name = entry.pw_name
        else { return nil }
        return (String(cString: name), entry.pw_gid)
    }

    private static func groupNames(of user: String, primary: gid_t) -> [String] {
        var count: Int32 = 64
        var ids = [gid_t](repeating: 0, count: Int(count))
        if getgrouplist(user, primary, &ids, &count) < 0 {
            // Too small: count now says how many there are.
            ids = [gid_t](repeating: 0, count: Int(count))
            guard getgrouplist(user, primary, &ids, &count) >= 0 else { return [] }
        }
        return ids.prefix(Int(count)).compactMap(groupName)
    }

    private static func groupName(_ gid: gid_t) -> String? {
        var entry = group()
        var result: UnsafeMutablePointer<group>?
        var buffer = [CChar](repeating: 0, count: 16 * 1024)
        guard getgrgid_r(gid, &entry, &buffer, buffer.count, &result) == 0, result != nil, let name = entry.gr_name
        else { return nil }
        return String(cString: name)
    }
}
