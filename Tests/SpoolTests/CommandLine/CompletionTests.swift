import Foundation
import Testing

/// The completions in `bin/completions/`, each loaded in its own shell as Debian ships it (bash with
/// bash-completion, zsh, fish) against a real spool: each completes a subcommand, an option, an origin from
/// the spool's `.origins` and the ids a subcommand acts on, as the folders name them.
@Suite struct CompletionTests {
    /// The folder the completion files are in.
    static let folder = Repository.root + "/bin/completions"

    /// The shell `name` where Debian installs it, or nil.
    static func shell(_ name: String) -> String? {
        ["/usr/bin/\(name)", "/bin/\(name)"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The shells, where installed.
    static let bash: String? = shell("bash"), zsh: String? = shell("zsh"), fish: String? = shell("fish")

    /// A spool with a write waiting in `new/` (its name carries its retry state after a ':'), a conflict beside
    /// its reason, and an `.origins` that knows one origin.
    struct Fixture {
        let spool: TemporarySpool
        let waiting: String
        let conflict = "0000000001.M1P1Q1Rconflict.test"
        static let hostile = "$(touch pwned)`touch pwned`"

        init() throws {
            let spool = TemporarySpool()
            let waiting = try spool.enqueue(["PUT", "http://127.0.0.1:9/notes/1", "--body", "hello"])
            self.spool = spool
            self.waiting = waiting
            #expect(spool.names("new").contains { $0.hasPrefix(waiting + ":") }, "\(spool.names("new"))")
            spool.drop("conflict", conflict, #"{"method":"PUT","url":"http://127.0.0.1:9/notes/2"}"# + "\n")
            spool.drop("conflict", conflict + ".why", "status: 409\n")
            // A name a stranger chose: offered, never expanded or run.
            spool.drop("failed", Fixture.hostile, "{}\n")
            try Data("http://127.0.0.1:9 window=1 maximum=4\n".utf8).write(
                to: URL(fileURLWithPath: spool.path + "/.origins"))
        }
    }

    /// What every shell must offer. `complete` returns the matches for a line typed up to the cursor, where
    /// TAB is pressed; the spool is `$SPOOL_DIR`, or `--spool` on the line.
    static func expectCompletions(_ fixture: Fixture, _ complete: (String) throws -> [String]) throws {
        let subcommands = try complete("spool-ctl re")
        #expect(Set(subcommands) == ["release", "resolve", "retry"], "spool-ctl re: \(subcommands)")
        let options = try complete("spool-send --on")
        #expect(Set(options) == ["--once"], "spool-send --on: \(options)")
        let ids = try complete("spool-ctl show \(fixture.waiting.prefix(10))")
        #expect(Set(ids) == [fixture.waiting], "the id, without its state: \(ids)")
        let conflicts = try complete("spool-ctl --spool \(fixture.spool.path) resolve ")
        #expect(Set(conflicts) == [fixture.conflict], "conflict/ only, its reason left out: \(conflicts)")
        let origins = try complete("spool-ctl list --origin ")
        #expect(Set(origins) == ["http://127.0.0.1:9"], "from .origins: \(origins)")
        let retried = try complete("spool-ctl retry ")
        #expect(retried.count == 3, "failed/, conflict/ and new/: \(retried)")
        #expect(!FileManager.default.fileExists(atPath: fixture.spool.directory + "/pwned"), "a name ran: \(retried)")
    }

    /// bash completes through a function that reads the words bash hands it: the driver loads
    /// bash-completion when it is installed (Debian loads the file through it), then the file, sets those
    /// words from the line as readline would, calls the function and prints what it offers.
    static let bashDriver = #"""
        [ -f /usr/share/bash-completion/bash_completion ] && . /usr/share/bash-completion/bash_completion
        . "$1" || exit 2
        line=$2
        read -ra COMP_WORDS <<<"$line"
        [[ $line == *' ' ]] && COMP_WORDS+=('')
        COMP_LINE=$line COMP_POINT=${#line} COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
        spec=$(complete -p "${COMP_WORDS[0]}") || exit 3
        spec=${spec##*-F } && spec=${spec%% *}
        "$spec" "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
        printf '%s\n' "${COMPREPLY[@]}"
        """#

    @Test(.enabled(if: bash != nil, "needs bash"))
    func bashCompletesSubcommandsOptionsAndIDs() throws {
        let fixture = try Fixture()
        try Self.expectCompletions(fixture) { line in
            let run = try Command.run(
                Self.bash!,
                ["--norc", "--noprofile", "-c", Self.bashDriver, "bash", Self.folder + "/spool.bash", line],
                environment: ["SPOOL_DIR": fixture.spool.path], timeout: 30, workingDirectory: fixture.spool.directory)
            #expect(run.status == 0, "bash, \(line): \(run.status) \(run.stderr)")
            return run.lines
        }
    }

    /// fish's own `complete -C` completes a line as TAB would, printing each match and its description.
    @Test(.enabled(if: fish != nil, "needs fish; .ci/run installs it"))
    func fishCompletesSubcommandsOptionsAndIDs() throws {
        let fixture = try Fixture()
        try Self.expectCompletions(fixture) { line in
            let run = try Command.run(
                Self.fish!,
                ["--no-config", "-c", "source $argv[1]; complete -C $argv[2]", Self.folder + "/spool.fish", line],
                environment: ["SPOOL_DIR": fixture.spool.path], timeout: 30, workingDirectory: fixture.spool.directory)
            #expect(run.status == 0 && run.stderr.isEmpty, "fish, \(line): \(run.status) \(run.stderr)")
            return run.lines.map { String($0.prefix { $0 != "\t" }) }
        }
    }

    /// zsh completes only in its line editor, so the driver runs an interactive `zsh -f` under a
    /// pseudo-terminal (zsh/zpty), types the line and TAB, and waits, up to a deadline, for the shell to
    /// say the completion is done; the matches are what compadd was given, written to a file by the wrapper
    /// that setup.zsh puts around it. Arguments: the folder for fpath, a work folder, the line.
    static let zshDriver = #"""
        zmodload zsh/zpty zsh/zselect zsh/datetime || exit 2
        export COMPLETION_FOLDER=$1 COMPLETION_MATCHES=$2/matches
        line=$3 seen= deadline=$(( EPOCHREALTIME + 20 ))
        rm -f $COMPLETION_MATCHES
        # Reads the terminal until it shows $1; the markers are printed by setup.zsh, never typed, so that
        # the echo of what is typed cannot be taken for them.
        await() {
          local chunk
          while [[ $seen != *$1* ]]; do
            if (( EPOCHREALTIME > deadline )); then
              print -r -- "no $1 from zsh in time; the terminal showed: ${(q+)seen}" >&2
              exit 3
            fi
            zselect -t 10 -r $fd
            while zpty -r -t shell chunk; do seen+=$chunk; done
          done
        }
        trap 'zpty -d shell 2>/dev/null' EXIT
        zpty -b shell zsh -f -i || exit 2
        fd=$REPLY
        zpty -w shell "source ${(q)2}/setup.zsh"
        await '<<ready>>'
        zpty -w -n shell "$line"$'\t'
        await '<<done>>'
        [[ -f $COMPLETION_MATCHES ]] && cat $COMPLETION_MATCHES
        exit 0
        """#

    /// What the shell under the terminal sources: the completion system with the folder first in fpath, TAB
    /// bound to complete, and compadd wrapped to write each match it adds. The prompt says it is ready.
    static let zshSetup = #"""
        fpath=($COMPLETION_FOLDER $fpath)
        autoload -Uz compinit && compinit -u -D
        bindkey '^I' complete-word
        compadd() {
          # -O, -A and -D ask what would match and add nothing.
          if [[ ${@[1,(i)--]} == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return; fi
          local -a found
          builtin compadd -O found "$@"
          (( $#found )) && print -rl -- $found >>$COMPLETION_MATCHES
          builtin compadd "$@"
        }
        completion-done() { print -r -- '<<done>>' }
        comppostfuncs=(completion-done)
        PS1='<<ready>> '
        """#

    @Test(.enabled(if: zsh != nil, "needs zsh; .ci/run installs it"))
    func zshCompletesSubcommandsOptionsAndIDs() throws {
        let fixture = try Fixture()
        let work = fixture.spool.directory + "/zsh"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        try Self.zshSetup.write(toFile: work + "/setup.zsh", atomically: true, encoding: .utf8)
        try Self.expectCompletions(fixture) { line in
            let run = try Command.run(
                Self.zsh!, ["-f", "-c", Self.zshDriver, "zsh", Self.folder, work, line],
                environment: ["SPOOL_DIR": fixture.spool.path, "TERM": "xterm"], timeout: 30,
                workingDirectory: fixture.spool.directory)
            #expect(run.status == 0, "zsh, \(line): \(run.status) \(run.stderr)")
            return run.lines
        }
    }
}
