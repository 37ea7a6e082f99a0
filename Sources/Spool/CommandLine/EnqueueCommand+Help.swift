
/// The help text of `spool-enqueue`, apart from its logic.
extension EnqueueCommand {
    /// The help text.
    package static let help = """
        OVERVIEW: Queue one HTTP write, or one job for a handler, in a spool, durably, and print its id.

        The operation is written to tmp/, fsynced, renamed into new/, and new/ is fsynced:
        exit status 0 means it survives a crash or power cut. spool-send delivers it later.

        USAGE: spool-enqueue [--spool DIR] [METHOD] URL [-H 'Name: value']... [CURL OPTIONS]
                             [--body TEXT | --body-file FILE | --payload FILE] [--if-match ETAG] [--key KEY]
                             [--idempotency-key KEY] [--depends-on ID]... [--coalesce] [--merge] [--creates] [--allow-get]
                             [--not-before TIME] [--expires TIME] [--max-attempts N] [--priority N] [--auth NAME]
                             [--max-size BYTES] [--max-payload BYTES] [--max-queue COUNT] [--min-free BYTES]
               spool-enqueue [--spool DIR] --handler NAME [--key KEY] [--body TEXT | --body-file FILE]
                             [OPTIONS] [--] [ARG]...
               spool-enqueue [--spool DIR] --document FILE|-
               spool-enqueue [--spool DIR] --batch FILE|- [--max-size BYTES] [--max-queue COUNT] [--min-free BYTES]

        ARGUMENTS:
          METHOD                  The HTTP method (PUT, POST, PATCH, DELETE, ...), in upper case; without
                                  it, curl's: -X, else PUT with -T, POST with a body.
          URL                     The target, an http:// or https:// URL.
          ARG                     With --handler: an argument for the handler (after --, even one like -x).

        OPTIONS:
          --spool DIR             The spool directory (default: $SPOOL_DIR, else ./spool).
          --body TEXT             Send TEXT as the request body, with no Content-Type unless -H gives one
                                  (curl's -d sends application/x-www-form-urlencoded).
          --body-file FILE        Send the contents of FILE (- for standard input) as the body.
          --payload FILE          Copy FILE (- for standard input), of any size, into the spool after the
                                  document as its payload; spool-send streams it from there, never whole
                                  in memory. Content-Length is its size; no Content-Type unless a --header.
          --document FILE         Read a whole operation document from FILE (- for standard input)
                                  and check it instead of building one from arguments.
          --batch FILE            Queue the documents of FILE (- for standard input), one per line, durably
                                  together, and print their ids in that order; nothing when a line is bad.
          --if-match ETAG         Send If-Match: ETAG; a 412 answer files the operation in conflict/.
          --key KEY               Ordering key (default: the URL): writes with one key go in order.
          --idempotency-key KEY   Idempotency-Key to send (default: a new random key).
          --depends-on ID         Send only after operation ID is done; repeat for more.
          --coalesce              Let a newer write with the same key replace this one before it is sent.
          --merge                 Merge this JSON body (RFC 7396) into the newest write still waiting, never
                                  tried, on the same key, and print its id; else queue this one.
          --creates               This write creates its key's resource: a DELETE of the key while it has
                                  never been tried cancels it and the writes behind it; nothing is sent.
          --allow-get             Queue a GET, HEAD or OPTIONS for its effect (a heartbeat URL): nobody
                                  reads its answer. Without it they are refused: spool queues writes.
          --not-before TIME       Do not send before TIME (RFC 3339, @EPOCH, or +DURATION such as +10m).
          --expires TIME          Give up at TIME (same forms) and file the operation in failed/.
          --max-attempts N        Give up after N attempts (1 to 1000).
          --priority N            Send before lower priorities among due keys, -10 to 10 (default 0);
                                  never ahead of an earlier write of the same key.
          --auth NAME             Add the credentials of profile NAME from the auth directory at send time.
          --handler NAME          A job instead of a request: spool-send runs program NAME from its handler
                                  directory with the ARGs, the body on its standard input (default key:
                                  handler:NAME, so one handler's jobs run one after another).
          --max-size BYTES        Refuse documents larger than BYTES (default: 1048576).
          --max-payload BYTES     Refuse (exit 65) a payload larger than BYTES, with k, M or G for KiB,
                                  MiB or GiB (default: 1G).
          --max-queue COUNT       Refuse (exit 75) when COUNT operations already wait in new/
                                  (default: $SPOOL_MAX_QUEUE, else 100000).
          --min-free BYTES        Refuse (exit 75) when less than BYTES would stay free on the spool's
                                  file system (default: $SPOOL_MIN_FREE, else 16777216; 0: no check).
          -h, --help              Show help information.

        With curl's meaning, so that `curl` in a script can become `spool-enqueue`:

        CURL OPTIONS:
          -X, --request METHOD    The method.
          -H, --header LINE       'Name: value' adds a header; 'Name;' sends it empty; 'Name:' removes one
                                  spool or curl would add; repeat for more.
          -d, --data DATA         A body piece, sent as application/x-www-form-urlencoded; pieces are joined
                                  with &; @FILE (- for standard input) is read without CR and LF.
          --data-binary DATA      The same, @FILE read as it is.
          --data-raw DATA         The same, a leading @ taken as it is.
          --data-urlencode DATA   content, =content, name=content, @FILE or name@FILE, percent-encoded.
          --json DATA             A JSON body (@FILE as --data-binary; pieces joined as they are), with
                                  Content-Type and Accept application/json.
          -T, --upload-file FILE  PUT FILE (- for standard input) as the payload, streamed; a URL ending
                                  in / gets the file's name.
          -A, --user-agent NAME   The User-Agent header.
          -s, --silent, -S, --show-error, -f, --fail, --fail-with-body
                                  Taken as curl takes them: -s hides the progress meter of a payload's
                                  copy (shown only on a terminal); spool-enqueue prints only the id and
                                  always its errors, and a refusal is filed in failed/. Short options
                                  bundle (-sSf).
          -e, --referer URL       The Referer header.
          -b, --cookie NAME=VALUE A cookie for the Cookie header; repeat for more.
          -F, --form NAME=VALUE   A multipart/form-data part: a value, @FILE[;type=TYPE][;filename=NAME]
                                  for a file, or <FILE for a value read from a file; repeat for more.
          Refused, with what to do instead: -o, -O, -i, -w, -v, -L, --retry, -I, -G, -k, -x,
          -m, --limit-rate; -u, --oauth2-bearer and -H 'Authorization: ...' (a secret must not enter the
          spool: --auth NAME). A body is kept in the document up to 64 KiB,
          and as its payload beyond.

        EXIT STATUS:
          0 queued (the id is printed), 64 usage error, 65 invalid operation,
          66 unreadable input file or not a spool, 73/74 spool unusable, 75 disk or queue full: try again later.

        """
}
