import Glibc

/// Progress and problem messages of a long-running command, on standard error, prefixed with the program name.
package struct Log: Sendable {
    /// How much to say.
    package enum Level: Int, Sendable, Comparable {
        case quiet, normal, verbose
        /// Quieter first: a log at one level writes every message a quieter level would.
        package static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }
    }

    /// The program name written before each line.
    package let program: String
    /// The chosen level.
    package let level: Level

    /// The spool the messages are about, as the journal's `SPOOL_DIR` field.
    package let spool: String?

    /// A log for `program` at `level`, about `spool`.
    package init(program: String, level: Level = .normal, spool: String? = nil) {
        self.program = program
        self.level = level
        self.spool = spool
    }

    /// A log that says nothing, for library callers that do not want messages.
    package static let silent = Log(program: "", level: .quiet)

    /// Something an operator should see even with `-q`: a file moved to `failed/` or `conflict/`, an I/O error.
    package func warning(_ message: @autoclosure () -> String, _ fields: @autoclosure () -> LogFields = LogFields()) {
        write(message, at: .quiet, fields)
    }
    /// Something an operator normally wants to see: a recovered claim, a coalesced write.
    package func notice(_ message: @autoclosure () -> String, _ fields: @autoclosure () -> LogFields = LogFields()) {
        write(message, at: .normal, fields)
    }
    /// Per-operation detail, with `-v`.
    package func detail(_ message: @autoclosure () -> String, _ fields: @autoclosure () -> LogFields = LogFields()) {
        write(message, at: .verbose, fields)
    }

    /// Writes `message` when the level asks for it. Made only then: a detail line per request cost a string
    /// built and thrown away on every request. One line always: a handler's argument, a key or a server's
    /// answer inside it is escaped, so that it can neither forge a line of its own nor reach the terminal.
    /// When standard error is the journal, the message goes there with its `fields` instead.
    private func write(_ message: () -> String, at needed: Level, _ fields: () -> LogFields) {
        guard !program.isEmpty, level >= needed else { return }
        let text = message().replacingControlCharacters()
        // syslog's warning, notice and info.
        let priority = switch needed { case .quiet: 4; case .normal: 5; case .verbose: 6 }
        if let journal = Journal.forStandardError,
            journal.send(fields().entry(message: text, priority: priority, program: program, spool: spool))
        {
            return
        }
        ProgressMeter.printing(Array("\(program): \(text)\n".utf8))
    }
}
