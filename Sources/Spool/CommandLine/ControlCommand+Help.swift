
/// The help texts of `spool-ctl`, apart from its logic.
extension ControlCommand {
    /// The help text of the command (key "") and of each subcommand.
    package static let helps: [String: String] = [
        "": """
            OVERVIEW: Look at and act on the operations in a spool (like mailq, postqueue and postsuper).

            USAGE: spool-ctl [--spool DIR] <subcommand> [OPTIONS]

            OPTIONS:
              --spool DIR             The spool directory (default: $SPOOL_DIR, else ./spool).
              -h, --help              Show help information.

            SUBCOMMANDS:
              init                    Create the spool (the only subcommand that does: the others refuse a missing one).
              list                    One line per operation, oldest first.
              shape                   Waiting operations by origin and age, as Postfix's qshape.
              show                    One operation in full: document, retry state and reason; mine and theirs.
              stats                   Counts, oldest pending age, next due time, bytes on disk.
              retry                   Move operations from failed/ or conflict/ back to new/, or send deferred ones now.
              flush                   Send every deferred operation to one origin now, lifting its pause.
              hold                    Keep waiting operations from being sent, in their place, until released.
              release                 Let held operations go again, in their order.
              resolve                 Decide a conflict: keep mine, keep theirs, or edit and send.
              pending                 The writes still waiting, in send order, with their bodies (for overlays).
              discard                 Remove operations for good.
              check                   Verify the spool and report what is wrong; exit 0 only when healthy.
              cgi                     The triage page, as a CGI program for the web server you run.

              See 'spool-ctl <subcommand> --help' for the options of each.

            EXIT STATUS:
              0 done (check: healthy), 1 check found problems, 64 usage error, 65 the operation cannot be
              changed that way, 66 no such operation or no spool at the path, 73 init could not create
              the spool or stats its --output, 74 the spool cannot be read, 75 the operation is being sent or moved meanwhile: try again, 78 check found the
              configuration, a TLS file, an auth profile or a handler unusable.

            """,
        "init": """
            OVERVIEW: Create the spool and its five folders (mode 0700), synced to disk; an existing spool is left as
            it is. spool-enqueue also creates the spool it drops into; spool-send and the other subcommands refuse
            a path that is not a spool (exit 66), so that a mistyped --spool is an error, not a new empty spool.

            USAGE: spool-ctl [--spool DIR] init

            OPTIONS:
              -h, --help              Show help information.

            """,
        "list": """
            OVERVIEW: List operations, oldest first: id, state, attempts, next attempt, method, URL, key, age, reason.

            USAGE: spool-ctl [--spool DIR] list [new|cur|failed|conflict|all] [--origin ORIGIN]
                             [--older-than DURATION] [--last-error ERROR] [--json]

            ARGUMENTS:
              new|cur|failed|conflict|all   Which folder to list (default: all).

            OPTIONS:
              --origin ORIGIN         Only operations to ORIGIN (scheme://host[:port]).
              --older-than DURATION   Only operations enqueued at least DURATION ago (30m, 4h, 2d).
              --last-error ERROR      Only operations whose last attempt ended with ERROR: an HTTP status
                                      (503), a class of them (5xx) or a failure as list shows it (timeout).
              --json                  One JSON object per line, with stable field names, for jq.
              -h, --help              Show help information.

            """,
        "shape": """
            OVERVIEW: Count waiting operations by origin (rows) and age in minutes (columns), as Postfix's qshape:
            a column holds those at most that old and newer than the column before. Ages come from file names;
            origins too (h=), and one document is read per origin to print its name.

            USAGE: spool-ctl [--spool DIR] shape [waiting|new|cur|failed|conflict|all]

            ARGUMENTS:
              waiting|new|cur|failed|conflict|all   Which folders (default: waiting, that is new and cur).

            OPTIONS:
              -h, --help              Show help information.

            """,
        "hold": """
            OVERVIEW: Put waiting operations on hold, as Postfix's postsuper does: no run sends them, nor anything after
            them in their key, until 'spool-ctl release'. They stay in new/, with s=held in their name (ls shows
            it), their order, attempts and retry time kept. An operation being sent is refused (exit 75).

            USAGE: spool-ctl [--spool DIR] hold ID... | [--origin ORIGIN] [--key KEY] [--older-than DURATION]
                                 [--last-error ERROR]

            ARGUMENTS:
              ID                      An operation id, the start of one, or a path such as
                                      spool/new/ID; - reads ids from standard input, one a line.

            OPTIONS:
              --origin ORIGIN         Every waiting operation to ORIGIN (scheme://host[:port]).
              --key KEY               Every waiting operation with this ordering key.
              --older-than DURATION   Only those enqueued at least DURATION ago (30m, 4h, 2d).
              --last-error ERROR      Only those whose last attempt ended with ERROR: an HTTP status
                                      (503), a class of them (5xx) or a failure as list shows it (timeout).
              -h, --help              Show help information.

            """,
        "release": """
            OVERVIEW: Take held operations off hold. They go in their place in their key
            at their next attempt time ('spool-ctl retry --now ID' or 'flush --origin' for at once).

            USAGE: spool-ctl [--spool DIR] release ID... | [--origin ORIGIN] [--key KEY] [--older-than DURATION]
                                 [--last-error ERROR]

            ARGUMENTS:
              ID                      An operation id, the start of one, or a path such as
                                      spool/new/ID; - reads ids from standard input, one a line.

            OPTIONS:
              --origin ORIGIN         Every held operation to ORIGIN (scheme://host[:port]).
              --key KEY               Every held operation with this ordering key.
              --older-than DURATION   Only those enqueued at least DURATION ago (30m, 4h, 2d).
              --last-error ERROR      Only those whose last attempt ended with ERROR: an HTTP status
                                      (503), a class of them (5xx) or a failure as list shows it (timeout).
              -h, --help              Show help information.

            """,
        "show": """
            OVERVIEW: Show one operation: its document, retry state and, when filed, its reason. For a conflict,
            also my body and the server's version that spool-send fetched, JSON pretty-printed, with their ETags.

            USAGE: spool-ctl [--spool DIR] show ID [--json | --diff]

            ARGUMENTS:
              ID                      An operation id, or a path such as spool/conflict/ID.

            OPTIONS:
              --json                  One JSON object.
              --diff                  For a conflict, only the unified diff from the server's version to mine.
              -h, --help              Show help information.

            """,
        "stats": """
            OVERVIEW: Count operations per folder, with the oldest pending age, next due time and bytes on disk.

            USAGE: spool-ctl [--spool DIR] stats [--json | --prometheus] [--output FILE]

            OPTIONS:
              --json                  One JSON object.
              --prometheus            The node_exporter textfile format, for a cron line feeding monitoring.
              --output FILE           Write to FILE instead, replacing it at once (written beside it under a
                                      hidden name, then renamed over it), so a reader never sees half of it.
              -h, --help              Show help information.

            """,
        "retry": """
            OVERVIEW: Move operations from failed/ or conflict/ back to new/ with no attempts, keeping their
            idempotency key; or clear the retry time of deferred operations in new/.

            USAGE: spool-ctl [--spool DIR] retry ID... | --all-failed | --all-conflict [--origin ORIGIN]
                                 [--older-than DURATION] [--last-error ERROR] [--if-match ETAG] [--now]

            ARGUMENTS:
              ID                      An operation id, the start of one, or a path such as
                                      spool/conflict/ID; - reads ids from standard input, one a line.

            OPTIONS:
              --all-failed            Every operation in failed/.
              --all-conflict          Every operation in conflict/.
              --origin ORIGIN         Only the filed operations to ORIGIN (both folders, or the one chosen).
              --older-than DURATION   Only the filed operations enqueued more than DURATION ago.
              --last-error ERROR      Only the filed operations whose last attempt ended with ERROR: an
                                      HTTP status (404), a class of them (4xx) or a failure (timeout).
              --if-match ETAG         Replace the stale version with ETAG (after looking at the server);
                                      the operation also gets a new idempotency key, being a new request.
              --now                   Clear the retry time of deferred operations in new/ (all, without IDs).
              -h, --help              Show help information.

            """,
        "flush": """
            OVERVIEW: Make every deferred operation to one origin due now, in its place in the order, and lift the
            pause the origin asked for (Retry-After, a used-up quota), so that the next spool-send run sends to it
            at once (Postfix's site flush, postqueue's s). Asks first on a terminal. A running watcher keeps the
            pause it holds in memory until it is restarted.

            USAGE: spool-ctl [--spool DIR] flush --origin ORIGIN [--yes]

            OPTIONS:
              --origin ORIGIN         The origin (scheme://host[:port]).
              --yes                   Do not ask.
              -h, --help              Show help information.

            """,
        "pending": """
            OVERVIEW: The writes still waiting to be sent (new/ and cur/), in the order they will be sent, with
            method, URL, key, whether each creates its resource, and its body (JSON as JSON): what a program that
            shows a list read from the server must overlay on it (updates and deletions on every page, local
            creations on the first). Handler jobs are left out.

            USAGE: spool-ctl [--spool DIR] pending [--key KEY | --url-prefix URL] [--json]

            OPTIONS:
              --key KEY               Only the writes with this ordering key.
              --url-prefix URL        Only the writes whose URL starts with URL.
              --json                  One JSON object per line (JSON Lines), for a program.
              -h, --help              Show help information.

            """,
        "resolve": """
            OVERVIEW: Decide a conflict with the server's version that spool-send fetched beside it (see 'show').
            Keeping mine re-queues the write with If-Match set to that version's ETag and a new idempotency key;
            it is refused when no ETag is known. Keeping theirs discards mine. Editing opens $VISUAL, else
            $EDITOR, else vi, on my body (a merge view with both sides when both are JSON), then re-queues
            the edited body as keeping mine does.

            USAGE: spool-ctl [--spool DIR] resolve ID --keep-mine | --keep-theirs | --edit

            ARGUMENTS:
              ID                      An operation id in conflict/, or a path such as spool/conflict/ID.

            OPTIONS:
              --keep-mine             Send my write again over the server's version.
              --keep-theirs           Discard my write; the server's version stands.
              --edit                  Edit my body, then send it over the server's version.
              -h, --help              Show help information.

            """,
        "discard": """
            OVERVIEW: Remove operations for good, with their reasons. Asks first on a terminal.

            USAGE: spool-ctl [--spool DIR] discard ID... | --all-failed | --all-conflict [--origin ORIGIN]
                                   [--older-than DURATION] [--last-error ERROR] [--yes]

            ARGUMENTS:
              ID                      An operation id, the start of one, or a path such as
                                      spool/failed/ID; - reads ids from standard input, one a line.

            OPTIONS:
              --all-failed            Every operation in failed/ (as postsuper deletes ALL).
              --all-conflict          Every operation in conflict/.
              --origin ORIGIN         Only the filed operations to ORIGIN (both folders, or the one chosen).
              --older-than DURATION   Only the filed operations enqueued more than DURATION ago.
              --last-error ERROR      Only the filed operations whose last attempt ended with ERROR: an
                                      HTTP status (404), a class of them (4xx) or a failure (timeout).
              --yes                   Do not ask.
              -h, --help              Show help information.

            """,
        "cgi": """
            OVERVIEW: The triage page, as a CGI/1.1 program (RFC 3875) that the web server you already run starts
            per request (Apache mod_cgi, nginx with fcgiwrap, lighttpd): counts per state and origin, each origin's
            state with Hold, Release and Flush, the failed and conflict lists, and per conflict your version and
            the server's side by side with their diff and Keep mine, Keep theirs, Retry and Discard. Plain HTML,
            no script. The web server authenticates (REMOTE_USER); the buttons post a CSRF token bound to that
            user under the secret in $SPOOL_CGI_SECRET, a file outside the spool made on first use (without it
            the page is read-only). Each action is the spool-ctl subcommand of the same name, logged on standard
            error (the web server's error log) with REMOTE_USER.

            USAGE: spool-ctl [--spool DIR] cgi

            OPTIONS:
              -h, --help              Show help information.

            """,
        "check": """
            OVERVIEW: Verify the spool: layout, modes, stale claims, unreadable files, stray files in the spool root.
            Prints one line per problem; exit status 0 only when the spool is healthy.

            Also validates what spool-send reads outside the spool, as it reads it: the configuration and the
            TLS files it names, every auth profile (mode, lines, the TLS files it names) and every program in
            the handler directory. Exit status 78 when any of those cannot be used.

            USAGE: spool-ctl [--spool DIR] check [--config FILE] [--auth-dir DIR] [--handler-dir DIR]

            OPTIONS:
              --config FILE           The spool.conf(5) to validate (default: $SPOOL_CONFIG).
              --auth-dir DIR          The auth profiles to validate (default: $SPOOL_AUTH_DIR).
              --handler-dir DIR       The handler directory to validate (default: $SPOOL_HANDLER_DIR, else
                                      handler-dir in the configuration).
              -h, --help              Show help information.

            """,
    ]
}
