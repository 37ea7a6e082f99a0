
extension SendCommand {
    /// The text of `spool-send --help`.
    package static let help = """
        OVERVIEW: Deliver the HTTP writes and handler jobs queued in a spool: in order per key, with backoff,
        once in effect.

        USAGE: spool-send [--spool DIR] [--once | --watch] [--flush] [--concurrency N] [--threads N]
                          [--timeout SECONDS]
                          [--min-backoff DURATION] [--max-backoff DURATION] [--lifetime DURATION]
                          [--warn-after DURATION] [--max-payload BYTES]
                          [--auth-dir DIR] [--handler-dir DIR] [--max-size BYTES] [--allow-origin ORIGIN]...
                          [--lease DURATION] [--poll DURATION]
                          [--cacert FILE] [--proxy URL] [--noproxy HOSTS] [--http1.1] [--max-rate RATE]
                          [--no-fetch-on-conflict] [--config FILE]
                          [-v | -q]

        OPTIONS:
          --spool DIR             The spool directory (default: $SPOOL_DIR, else ./spool).
          --once                  Send everything that is due, then exit (default; what cron runs).
          --watch                 Keep running: send files as they land in new/ (inotify) and retries when due.
          --flush                 Ignore retry times for this run, still in order (like postqueue -f).
          --concurrency N         Keys sent in parallel (default: 4).
          --threads N             Threads that send, each with its own connections (default: 1, as curl
                                  sends; more spread TLS work over processors; at most --concurrency).
          --timeout SECONDS       Give up on one request, or stop one handler, after SECONDS (default: 30).
          --min-backoff DURATION  Delay after a first failed attempt, doubling after each (default: 30).
          --max-backoff DURATION  Longest delay between attempts (default: 3600).
          --lifetime DURATION     Fail operations not delivered this long after enqueue (default: 5d).
          --warn-after DURATION   Say once, on standard error, that an operation will not be delivered this
                                  long after enqueue (like Postfix's delay_warning_time; default: none,
                                  else warn-after in spool.conf).
          --lease DURATION        Presume another host's claim dead after this long; longer than --timeout
                                  plus the clock skew between hosts (default: --timeout + 5m).
          --poll DURATION         With --watch, also look at new/ this often: on a shared spool other
                                  hosts' drops raise no inotify event here (default: every 2s on NFS,
                                  FUSE, CIFS, Ceph or 9P, else inotify only).
          --auth-dir DIR          Credential profiles for operations with "auth" (default: $SPOOL_AUTH_DIR).
          --handler-dir DIR       The programs that jobs with "handler" may run (default: $SPOOL_HANDLER_DIR,
                                  else handler-dir in spool.conf, else none: such jobs wait).
          --no-fetch-on-conflict  Do not GET the server's version of a resource whose write lands in
                                  conflict/ (default: one GET, kept beside the conflict for spool-ctl show,
                                  unless fetch-on-conflict = no in spool.conf for its origin).
          --max-size BYTES        Fail documents larger than BYTES (default: 1048576).
          --max-payload BYTES     Fail payloads larger than BYTES, with k, M or G (default: 1G); a payload is
                                  streamed from the spool, and --timeout bounds its stalls, not its length.
          --allow-origin ORIGIN   Send only to this origin (scheme://host[:port]); repeat for more
                                  (default: $SPOOL_ALLOW_ORIGINS, separated by spaces, commas or
                                  newlines, else any origin).
          --cacert FILE           Trust the CA certificates in FILE (PEM) instead of the system's
                                  (default: $SPOOL_CA_FILE); an auth profile's cacert overrides it.
          --proxy URL             Send every request through this proxy (default: http_proxy, https_proxy,
                                  all_proxy from the environment, as curl reads them).
          --noproxy HOSTS         Comma-separated hosts reached directly (default: $no_proxy).
          --http1.1               Use HTTP/1.1 only (default: HTTP/2 on https when the server offers it).
          --max-rate RATE         Send each request's body at most RATE bytes a second, as curl's
                                  --limit-rate (500k, 2M); per origin: max-rate in spool.conf.
          --config FILE           Per-origin limits and transport settings, spool.conf(5)
                                  (default: $SPOOL_CONFIG, else none).
          -v, --verbose           Say what happens to every operation.
          -q, --quiet             Say only what needs an operator (failures, conflicts, spool errors).
          -h, --help              Show help information.

        EXIT STATUS:
          0 done (even if some operations were deferred), 64 usage error, 66 no spool at the path (make
          one with spool-ctl init), 74 the spool's storage failed or a file could not be read (every
          operation stays where it is),
          75 the system was short of resources (open files, memory, space) or the spool's network file
          system was out of reach: the next run goes on, 78 the configuration cannot be used.

        """
}
