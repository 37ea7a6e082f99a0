import Foundation
import Glibc
import SpoolTestSupport

/// Debian's Apache httpd, started by a test on 127.0.0.1 with its own configuration: mod_dav on `/dav/`
/// (a WebDAV store in `dav/`, a real server whose 412 carries no ETag) and mod_cgi on `/cgi-bin/` behind
/// basic authentication. Its children run as www-data, so what they write is given to that user. Stopped,
/// and its files removed, when the test drops it.
final class Apache {
    let port: UInt16
    let directory: String
    private let binary: String

    /// The path to apache2, or nil with the reason printed.
    static let binary: String? = {
        let paths = ["/usr/sbin/apache2", "/usr/lib/apache2/modules/mod_dav_fs.so", "/usr/lib/apache2/modules/mod_cgi.so"]
        if paths.allSatisfy({ FileManager.default.fileExists(atPath: $0) }), getpwnam("www-data") != nil {
            return paths[0]
        }
        print("skipped: these tests need Apache with mod_dav and mod_cgi (Debian's apache2); .ci/run installs it")
        return nil
    }()

    /// The WebDAV folder on disk.
    var davDirectory: String { directory + "/dav" }
    /// The CGI folder on disk.
    var cgiDirectory: String { directory + "/cgi-bin" }
    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Starts Apache; `environment` is set for CGI programs, and `users` (name: password) may sign in.
    init(environment: [String: String] = [:], users: [String: String] = [:]) throws {
        guard let binary = Apache.binary else { throw Skip.missing("apache2") }
        self.binary = binary
        let directory = NSTemporaryDirectory() + "spool-apache-\(UUID().uuidString)"
        let davDirectory = directory + "/dav", cgiDirectory = directory + "/cgi-bin"
        self.directory = directory
        for folder in [directory, davDirectory, cgiDirectory, directory + "/run"] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        try Apache.giveToWebServer(davDirectory)
        try Apache.giveToWebServer(directory + "/run")
        let port = TestServer.deadPort()
        self.port = port
        var passwords = ""
        for (user, password) in users {
            let result = try Command.run("/usr/bin/htpasswd", ["-nbB", user, password])
            passwords += result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) + "\n"
        }
        try passwords.write(toFile: directory + "/htpasswd", atomically: true, encoding: .utf8)
        let modules = [
            "mpm_prefork", "authz_core", "authn_core", "authn_file", "authz_user", "auth_basic", "alias", "cgi", "env",
            "dav", "dav_fs",
        ]
        var configuration = modules.map { "LoadModule \($0)_module /usr/lib/apache2/modules/mod_\($0).so" }
            .joined(separator: "\n")
        configuration += """

            ServerName 127.0.0.1
            Listen 127.0.0.1:\(port)
            User www-data
            Group www-data
            DefaultRuntimeDir \(directory)/run
            PidFile \(directory)/run/httpd.pid
            ErrorLog \(directory)/error.log
            LogFormat "%m %U %>s" plain
            CustomLog \(directory)/access.log plain
            DocumentRoot \(directory)
            DavLockDB \(directory)/run/davlock
            <Directory />
                Require all denied
            </Directory>
            Alias /dav/ \(davDirectory)/
            <Directory \(davDirectory)>
                Dav On
                Require all granted
            </Directory>
            ScriptAlias /cgi-bin/ \(cgiDirectory)/
            <Directory \(cgiDirectory)>
                Options +ExecCGI
                AuthType Basic
                AuthName "spool"
                AuthUserFile \(directory)/htpasswd
                Require valid-user
            </Directory>

            """
        for (name, value) in environment.sorted(by: { $0.key < $1.key }) { configuration += "SetEnv \(name) \(value)\n" }
        // Under .ci/run's sanitizer passes, a CGI program (a sanitized spool-ctl) reports where the others do.
        for name in ["TSAN_OPTIONS", "ASAN_OPTIONS", "LSAN_OPTIONS"] where ProcessInfo.processInfo.environment[name] != nil {
            configuration += "PassEnv \(name)\n"
        }
        try configuration.write(toFile: directory + "/httpd.conf", atomically: true, encoding: .utf8)
        // Started as a daemon and stopped with -k stop, as an admin runs it: its parent stays root and reaps
        // its www-data children itself.
        // Its output goes to its error log: the daemon must not hold the pipes Command.run reads to their end.
        guard Apache.control(binary, directory + "/httpd.conf", "start") == 0 else {
            throw Skip.missing("apache2 did not start: \(errorLog)")
        }
        for _ in 0..<250 {
            if Nginx.listening(port) { return }
            usleep(20_000)
        }
        throw Skip.missing("apache2 did not start: \(errorLog)")
    }

    deinit {
        _ = Apache.control(binary, directory + "/httpd.conf", "stop")
        // Gone when its port is free again (within 10 s: Apache waits for its children).
        for _ in 0..<500 where Nginx.listening(port) { usleep(20_000) }
        try? FileManager.default.removeItem(atPath: directory)
    }

    var errorLog: String { (try? String(contentsOfFile: directory + "/error.log", encoding: .utf8)) ?? "" }

    /// What Apache itself logged: `METHOD PATH STATUS` per request.
    var accessLog: [String] {
        ((try? String(contentsOfFile: directory + "/access.log", encoding: .utf8)) ?? "").split(separator: "\n")
            .map(String.init)
    }

    /// Runs `apache2 -f CONFIGURATION -k VERB` and waits for it with waitpid: Foundation's Process never saw
    /// the end of a program that daemonizes (its first process stayed a zombie).
    static func control(_ binary: String, _ configuration: String, _ verb: String) -> Int32 {
        let argv = ["/bin/sh", "-c", "exec \"$0\" -f \"$1\" -k \"$2\" </dev/null >/dev/null 2>&1", binary, configuration, verb]
        var arguments = argv.map { strdup($0) } + [nil]
        defer { for argument in arguments { free(argument) } }
        // A clean signal mask and default dispositions: the test process's threads block signals, and a daemon
        // that inherited a blocked SIGTERM would never stop.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t(), all = sigset_t()
        sigemptyset(&empty)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        guard posix_spawn(&pid, "/bin/sh", nil, &attributes, &arguments, environ) == 0 else { return -1 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            if errno != EINTR { return 0 }  // reaped by someone else: it ran
        }
        return status
    }

    /// Gives `path` and everything under it to www-data, the user Apache's children run as; throws when it
    /// cannot (`Apache.binary` has checked that the user exists), so that no test goes on with a spool the
    /// web server cannot write.
    static func giveToWebServer(_ path: String) throws {
        guard let user = getpwnam("www-data") else { throw Skip.missing("the user www-data") }
        let (uid, gid) = (user.pointee.pw_uid, user.pointee.pw_gid)
        guard chown(path, uid, gid) == 0 else { throw Skip.missing("chown \(path): errno \(errno)") }
        let names = try FileManager.default.subpathsOfDirectory(atPath: path)
        for name in names where lchown(path + "/" + name, uid, gid) != 0 {
            throw Skip.missing("lchown \(path)/\(name): errno \(errno)")
        }
    }
}
