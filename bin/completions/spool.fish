# fish completion for spool-send, spool-enqueue and spool-ctl: subcommands, options, and the values spool
# knows (origins from the spool's .origins, handler names, auth profile names, queued ids).
#
# One file for the three commands, which share the lookups in the spool: fish loads
# vendor_completions.d/NAME.fish when NAME is first completed, so this file is installed under each name (as
# links) and defines all three, once. Every lookup only lists names: nothing in the spool is run, and fish
# escapes what it inserts.

# Loaded once, under whichever name fish completed first.
functions -q __spool_dir; and return

# The spool the line names, as the programs choose it: --spool DIR, else $SPOOL_DIR, else ./spool.
function __spool_dir
    set -l tokens (commandline -opc)
    set -l dir
    for i in (seq 2 (count $tokens))
        switch $tokens[$i]
            case --spool
                set -q tokens[(math $i + 1)]; and set dir $tokens[(math $i + 1)]
            case '--spool=*'
                set dir (string replace -- --spool= '' $tokens[$i])
        end
    end
    test -n "$dir"; or set dir $SPOOL_DIR
    test -n "$dir"; or set dir spool
    # As typed: a leading ~ is not expanded yet.
    string replace -r -- '^~/' "$HOME/" $dir
end

# The ids in the spool's folders $argv[2..]: entries but hidden ones and reasons (*.why), up to the last ':'
# (a name is ID, ID:STATE or ID:STATE@CLAIM). $argv[1] keeps those on hold (held), those not (free), or all
# (any). string reads standard input when given no words, hence the checks for none.
function __spool_ids -a keep
    set -l spool (__spool_dir)
    for folder in $argv[2..-1]
        set -l names $spool/$folder/*
        set -q names[1]; and set names (string replace -r -- '.*/' '' $names | string match -v -- '*.why')
        set -q names[1]; or continue
        switch $keep
            case held
                set names (string match -- '*:*,s=held*' $names)
            case free
                set names (string match -v -- '*:*,s=held*' $names)
        end
        set -q names[1]; and string replace -r -- ':[^:]*$' '' $names
    end
end

# The origins the sender has met, from the spool's .origins: the first field of each line (a regular file
# only: reading a FIFO would hang the shell).
function __spool_origins
    set -l file (__spool_dir)/.origins
    test -f $file -a -r $file; or return
    string replace -r -- ' .*' '' <$file | string match -- '*://*' | sort -u
end

# The names in directory $argv[1] but hidden ones: auth profiles, handlers.
function __spool_names -a dir
    test -n "$dir"; or return
    set -l paths $dir/*
    set -q paths[1]; and string replace -r -- '.*/' '' $paths
end

# The handler directory spool-send would use without --handler-dir: $SPOOL_HANDLER_DIR, else handler-dir in
# $SPOOL_CONFIG (spool-enqueue, which names handlers, has neither option).
function __spool_handler_dir
    if test -n "$SPOOL_HANDLER_DIR"
        echo $SPOOL_HANDLER_DIR
    else if test -f "$SPOOL_CONFIG" -a -r "$SPOOL_CONFIG"
        set -l dirs (string replace -rf -- '^\s*handler-dir\s*=\s*([^\s#]*).*' '$1' <$SPOOL_CONFIG)
        set -q dirs[1]; and echo $dirs[1]
    end
end

# The words before the cursor that are neither options nor their values; $argv: the options that take one.
function __spool_args
    set -l tokens (commandline -opc)
    set -e tokens[1]
    while set -q tokens[1]
        if contains -- $tokens[1] $argv
            set -e tokens[1]
        else if not string match -q -- '-?*' $tokens[1]
            echo $tokens[1]
        end
        set -e tokens[1]
    end
end

# spool-ctl's words: the subcommand first.
function __spool_ctl_args
    __spool_args --spool --origin --older-than --last-error --key --url-prefix --if-match --output --config \
        --auth-dir --handler-dir
end

# Whether spool-ctl's subcommand is one of $argv.
function __spool_ctl_is
    set -l words (__spool_ctl_args)
    set -q words[1]; and contains -- $words[1] $argv
end

# Whether spool-ctl's subcommand is $argv[1] and its one argument is not given yet.
function __spool_ctl_one
    set -l words (__spool_ctl_args)
    test (count $words) -eq 1; and test "$words[1]" = $argv[1]
end

set -l directories '(__fish_complete_directories (commandline -ct))'
complete -c spool-ctl -f
complete -c spool-ctl -l spool -x -a $directories -d 'The spool directory'
complete -c spool-ctl -s h -l help -d 'Show help information'
set -l subcommands init list shape show stats retry flush hold release resolve pending discard check cgi
set -l first "not __spool_ctl_is $subcommands"
complete -c spool-ctl -n $first -a init -d 'Create the spool'
complete -c spool-ctl -n $first -a list -d 'One line per operation, oldest first'
complete -c spool-ctl -n $first -a shape -d 'Waiting operations by origin and age'
complete -c spool-ctl -n $first -a show -d 'One operation in full'
complete -c spool-ctl -n $first -a stats -d 'Counts, ages, due time, bytes on disk'
complete -c spool-ctl -n $first -a retry -d 'Move operations back to new/, or send now'
complete -c spool-ctl -n $first -a flush -d 'Send every deferred operation to one origin'
complete -c spool-ctl -n $first -a hold -d 'Keep waiting operations from being sent'
complete -c spool-ctl -n $first -a release -d 'Let held operations go again'
complete -c spool-ctl -n $first -a resolve -d 'Decide a conflict'
complete -c spool-ctl -n $first -a pending -d 'The writes still waiting, with bodies'
complete -c spool-ctl -n $first -a discard -d 'Remove operations for good'
complete -c spool-ctl -n $first -a check -d 'Verify the spool'
complete -c spool-ctl -n $first -a cgi -d 'The triage page, as a CGI program'
# Filters of list's, and the ids each subcommand acts on.
set -l filtering 'list retry discard hold release'
complete -c spool-ctl -n "__spool_ctl_is $filtering flush" -l origin -x -a '(__spool_origins)' \
    -d 'Only operations to this origin'
complete -c spool-ctl -n "__spool_ctl_is $filtering" -l older-than -x -d 'Only operations enqueued this long ago'
complete -c spool-ctl -n "__spool_ctl_is $filtering" -l last-error -x \
    -a '4xx 5xx refused dns timeout lost tls network auth handler' -d 'Only operations whose last attempt ended so'
complete -c spool-ctl -n '__spool_ctl_is list pending show stats' -l json -d 'JSON, for a program'
complete -c spool-ctl -n '__spool_ctl_one list' -a 'new cur failed conflict all'
complete -c spool-ctl -n '__spool_ctl_one shape' -a 'waiting new cur failed conflict all'
complete -c spool-ctl -n '__spool_ctl_one show' -a '(__spool_ids any new cur failed conflict)'
complete -c spool-ctl -n '__spool_ctl_is show' -l diff -d 'Only the diff from the server\'s version to mine'
complete -c spool-ctl -n '__spool_ctl_is stats' -l prometheus -d 'The node_exporter textfile format'
complete -c spool-ctl -n '__spool_ctl_is stats' -l output -r -F -d 'Write to this file'
complete -c spool-ctl -n '__spool_ctl_is retry' -a '(__spool_ids any failed conflict new)'
complete -c spool-ctl -n '__spool_ctl_is retry discard' -l all-failed -d 'Every operation in failed/'
complete -c spool-ctl -n '__spool_ctl_is retry discard' -l all-conflict -d 'Every operation in conflict/'
complete -c spool-ctl -n '__spool_ctl_is retry' -l if-match -x -d 'Replace the stale version with this ETag'
complete -c spool-ctl -n '__spool_ctl_is retry' -l now -d 'Clear the retry time of deferred operations'
complete -c spool-ctl -n '__spool_ctl_is flush discard' -l yes -d 'Do not ask'
complete -c spool-ctl -n '__spool_ctl_is hold release pending' -l key -x -d 'Only operations with this ordering key'
complete -c spool-ctl -n '__spool_ctl_is hold' -a '(__spool_ids free new)'
complete -c spool-ctl -n '__spool_ctl_is release' -a '(__spool_ids held new)'
complete -c spool-ctl -n '__spool_ctl_one resolve' -a '(__spool_ids any conflict)'
complete -c spool-ctl -n '__spool_ctl_is resolve' -l keep-mine -d 'Send my write again over the server\'s version'
complete -c spool-ctl -n '__spool_ctl_is resolve' -l keep-theirs -d 'Discard my write'
complete -c spool-ctl -n '__spool_ctl_is resolve' -l edit -d 'Edit my body, then send it'
complete -c spool-ctl -n '__spool_ctl_is pending' -l url-prefix -x -d 'Only the writes whose URL starts so'
complete -c spool-ctl -n '__spool_ctl_is discard' -a '(__spool_ids any new cur failed conflict)'
complete -c spool-ctl -n '__spool_ctl_is check' -l config -r -F -d 'The spool.conf to validate'
complete -c spool-ctl -n '__spool_ctl_is check' -l auth-dir -x -a $directories -d 'The auth profiles to validate'
complete -c spool-ctl -n '__spool_ctl_is check' -l handler-dir -x -a $directories -d 'The handlers to validate'

complete -c spool-send -f
complete -c spool-send -l spool -x -a $directories -d 'The spool directory'
complete -c spool-send -l once -d 'Send everything that is due, then exit'
complete -c spool-send -l watch -d 'Keep running, sending files as they land'
complete -c spool-send -l flush -d 'Ignore retry times for this run'
complete -c spool-send -l concurrency -x -d 'Keys sent in parallel'
complete -c spool-send -l threads -x -d 'Threads that send'
complete -c spool-send -l timeout -x -d 'Give up on one request after SECONDS'
complete -c spool-send -l min-backoff -x -d 'Delay after a first failed attempt'
complete -c spool-send -l max-backoff -x -d 'Longest delay between attempts'
complete -c spool-send -l lifetime -x -d 'Fail operations not delivered this long after enqueue'
complete -c spool-send -l warn-after -x -d 'Warn of operations not delivered this long after enqueue'
complete -c spool-send -l lease -x -d 'Presume another host\'s claim dead after this long'
complete -c spool-send -l poll -x -d 'With --watch, also look at new/ this often'
complete -c spool-send -l auth-dir -x -a $directories -d 'Credential profiles'
complete -c spool-send -l handler-dir -x -a $directories -d 'The programs jobs may run'
complete -c spool-send -l no-fetch-on-conflict -d 'Do not fetch the server\'s version of a conflict'
complete -c spool-send -l max-size -x -d 'Fail documents larger than BYTES'
complete -c spool-send -l max-payload -x -d 'Fail payloads larger than BYTES'
complete -c spool-send -l allow-origin -x -a '(__spool_origins)' -d 'Send only to this origin'
complete -c spool-send -l cacert -r -F -d 'Trust the CA certificates in FILE'
complete -c spool-send -l proxy -x -d 'Send every request through this proxy'
complete -c spool-send -l noproxy -x -d 'Hosts reached directly'
complete -c spool-send -l http1.1 -d 'Use HTTP/1.1 only'
complete -c spool-send -l max-rate -x -d 'Send each body at most RATE bytes a second'
complete -c spool-send -l config -r -F -d 'Per-origin limits and transport settings'
complete -c spool-send -s v -l verbose -d 'Say what happens to every operation'
complete -c spool-send -s q -l quiet -d 'Say only what needs an operator'
complete -c spool-send -s h -l help -d 'Show help information'

# spool-enqueue's words before the cursor that are METHOD, URL or a handler's arguments.
function __spool_enqueue_args
    __spool_args --spool --body --body-file --payload --document --batch --if-match --key --idempotency-key \
        --depends-on --not-before --expires --max-attempts --priority --auth --handler --max-size --max-payload \
        --max-queue --min-free -X --request -H --header -d --data --data-ascii --data-binary --data-raw \
        --data-urlencode --json -T --upload-file -A --user-agent -e --referer -b --cookie -F --form
end

# Whether the word at the cursor may be a request's METHOD (the first word) or URL (the first or, after an
# upper-case METHOD, the second); a handler's arguments are its own.
function __spool_enqueue_at -a what
    contains -- --handler (commandline -opc); and return 1
    string match -q -- '--handler=*' (commandline -opc); and return 1
    set -l words (__spool_enqueue_args)
    switch $what
        case method
            test (count $words) -eq 0
        case url
            test (count $words) -eq 0; or begin
                test (count $words) -eq 1; and string match -qr -- '^[A-Z]+$' $words[1]
            end
    end
end

complete -c spool-enqueue -f
complete -c spool-enqueue -n '__spool_enqueue_at method' -a 'PUT POST PATCH DELETE' -d 'Method'
complete -c spool-enqueue -n '__spool_enqueue_at url' -a '(__spool_origins | string replace -r \'$\' /)' -d 'Origin'
complete -c spool-enqueue -l spool -x -a $directories -d 'The spool directory'
complete -c spool-enqueue -l body -x -d 'Send TEXT as the body'
complete -c spool-enqueue -l body-file -r -F -d 'Send the contents of FILE as the body'
complete -c spool-enqueue -l payload -r -F -d 'Copy FILE into the spool as the payload'
complete -c spool-enqueue -l document -r -F -d 'Read a whole operation document'
complete -c spool-enqueue -l batch -r -F -d 'Queue the documents of FILE, one per line'
complete -c spool-enqueue -l if-match -x -d 'Send If-Match: ETAG'
complete -c spool-enqueue -l key -x -d 'Ordering key'
complete -c spool-enqueue -l idempotency-key -x -d 'Idempotency-Key to send'
complete -c spool-enqueue -l depends-on -x -a '(__spool_ids any new cur)' -d 'Send only after this operation'
complete -c spool-enqueue -l coalesce -d 'Let a newer write with the same key replace this one'
complete -c spool-enqueue -l merge -d 'Merge this JSON body into the newest waiting write'
complete -c spool-enqueue -l creates -d 'This write creates its key\'s resource'
complete -c spool-enqueue -l allow-get -d 'Queue a GET, HEAD or OPTIONS for its effect'
complete -c spool-enqueue -l not-before -x -d 'Do not send before TIME'
complete -c spool-enqueue -l expires -x -d 'Give up at TIME'
complete -c spool-enqueue -l max-attempts -x -d 'Give up after N attempts'
complete -c spool-enqueue -l priority -x -d 'Send before lower priorities, -10 to 10'
# It has no --auth-dir: the profiles are where $SPOOL_AUTH_DIR says.
complete -c spool-enqueue -l auth -x -a '(__spool_names "$SPOOL_AUTH_DIR")' -d 'Add the credentials of a profile'
complete -c spool-enqueue -l handler -x -a '(__spool_names (__spool_handler_dir))' -d 'A job for this handler'
complete -c spool-enqueue -l max-size -x -d 'Refuse documents larger than BYTES'
complete -c spool-enqueue -l max-payload -x -d 'Refuse payloads larger than BYTES'
complete -c spool-enqueue -l max-queue -x -d 'Refuse when COUNT operations wait'
complete -c spool-enqueue -l min-free -x -d 'Refuse when less than BYTES would stay free'
complete -c spool-enqueue -s X -l request -x -a 'PUT POST PATCH DELETE' -d 'The method'
complete -c spool-enqueue -s H -l header -x -d 'A header line'
complete -c spool-enqueue -s d -l data -x -d 'A body piece, form-encoded'
complete -c spool-enqueue -l data-binary -x -d 'A body piece, @FILE read as it is'
complete -c spool-enqueue -l data-raw -x -d 'A body piece, a leading @ taken as it is'
complete -c spool-enqueue -l data-urlencode -x -d 'A body piece, percent-encoded'
complete -c spool-enqueue -l json -x -d 'A JSON body piece'
complete -c spool-enqueue -s T -l upload-file -r -F -d 'PUT FILE as the payload'
complete -c spool-enqueue -s A -l user-agent -x -d 'The User-Agent header'
complete -c spool-enqueue -s e -l referer -x -d 'The Referer header'
complete -c spool-enqueue -s b -l cookie -x -d 'A cookie'
complete -c spool-enqueue -s F -l form -x -d 'A multipart/form-data part'
complete -c spool-enqueue -s s -l silent -d 'Hide the progress meter of a payload\'s copy'
complete -c spool-enqueue -s S -l show-error -d 'Taken as curl takes it'
complete -c spool-enqueue -s f -l fail -d 'Taken as curl takes it'
complete -c spool-enqueue -l fail-with-body -d 'Taken as curl takes it'
complete -c spool-enqueue -s h -l help -d 'Show help information'
