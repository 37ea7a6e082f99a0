
/// Postfix's `delay_warning_time` for spool: an operation still not delivered `warnAfterSeconds` seconds after it
/// was enqueued is reported once, on standard error, so that cron mails it to someone.
///
/// Once, without a mark anywhere: the document is never rewritten, and the name holds only the retry state.
/// The times an operation becomes due (its enqueue or `not_before`, then each retry time) cut the time after
/// its enqueue into intervals, and the warning goes with the deferral whose interval holds the moment the
/// operation turns `warnAfterSeconds` old: that deferral's next attempt comes after that moment, so the operation is
/// certain to be late.
package enum DelayWarning {
    /// Whether the deferral that moves an operation's due time from `previousDue` to `nextDue` (epoch
    /// seconds; 0 for due at once) is the one to warn with, for an operation enqueued at `enqueued`.
    package static func due(enqueued: Int64, previousDue: Int64, nextDue: Int64, warnAfterSeconds: Int64) -> Bool {
        let threshold = enqueued + warnAfterSeconds
        return max(previousDue, enqueued) < threshold && nextDue >= threshold
    }
}
