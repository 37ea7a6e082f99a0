import Glibc

/// Wall-clock time since the Unix epoch, with RFC 3339 reading and writing: the one place that reads the clocks.
/// Every instant and duration in spool is an integer or a `Double` whose name says its unit (`nowSeconds`,
/// `orderMicroseconds`, `leaseSeconds`, `timeoutSeconds`); this is where one unit becomes another.
package enum Timestamp {
    /// The current time in microseconds since the epoch.
    package static func nowMicroseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1000
    }

    /// Seconds on the monotonic clock, for deadlines.
    package static func monotonicSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// Nanoseconds on the monotonic clock, for short durations (how long the spool lock is held).
    package static func monotonicNanoseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }

    /// The current time in whole seconds since the epoch: the unit of names, reasons and `.origins`.
    package static func nowSeconds() -> Int64 { nowMicroseconds() / 1_000_000 }

    /// The current time in seconds since the epoch, with its fraction: the unit of pauses and rates.
    package static func nowFractionalSeconds() -> Double { Double(nowMicroseconds()) / 1e6 }

    /// Parses an RFC 3339 date-time (`2026-11-29T13:00:00Z`, `…+01:00`, fractions ignored) into epoch seconds.
    package static func parseRFC3339(_ text: String) -> Int64? {
        let b = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= b.count else { return nil }
            var n = 0
            for i in range {
                guard (48...57).contains(b[i]) else { return nil }
                n = n * 10 + Int(b[i] - 48)
            }
            return n
        }
        guard b.count >= 20, b[4] == 45, b[7] == 45, [84, 116, 32].contains(b[10]), b[13] == 58, b[16] == 58,
              let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second <= 60
        else { return nil }
        var i = 19
        if b[i] == 46 {
            i += 1
            let start = i
            while i < b.count, (48...57).contains(b[i]) { i += 1 }
            if i == start { return nil }
        }
        guard i < b.count else { return nil }
        var offset = 0
        if b[i] == 90 || b[i] == 122 {
            i += 1
        } else if b[i] == 43 || b[i] == 45 {
            guard i + 6 == b.count, b[i + 3] == 58, let oh = number(i + 1..<i + 3), let om = number(i + 4..<i + 6),
                oh < 24, om < 60
            else { return nil }
            offset = (oh * 3600 + om * 60) * (b[i] == 45 ? -1 : 1)
            i += 6
        } else {
            return nil
        }
        guard i == b.count else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        guard day <= daysInMonth(year: year, month: month) else { return nil }
        return Int64(days) * 86400 + Int64(hour * 3600 + minute * 60 + min(second, 59)) - Int64(offset)
    }

    /// Formats epoch seconds as RFC 3339 in UTC (`2026-11-29T13:00:00Z`).
    package static func formatRFC3339(_ seconds: Int64) -> String {
        var t = time_t(seconds)
        var parts = tm()
        gmtime_r(&t, &parts)
        func two(_ n: Int32) -> String { String(n).leftPadded(to: 2) }
        return "\(String(parts.tm_year + 1900).leftPadded(to: 4))-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    package static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    /// The number of days in `month` (1 to 12) of `year`, by the Gregorian leap-year rule.
    package static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Parses a duration such as `90`, `90s`, `15m`, `2h`, `5d` into seconds.
    package static func parseDuration(_ text: String) -> Int64? {
        guard let last = text.last else { return nil }
        let unit: Int64
        var digits = Substring(text)
        switch last {
        case "s": unit = 1; digits = digits.dropLast()
        case "m": unit = 60; digits = digits.dropLast()
        case "h": unit = 3600; digits = digits.dropLast()
        case "d": unit = 86400; digits = digits.dropLast()
        default: unit = 1
        }
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let n = Int64(digits), n >= 0, n < Int64.max / unit / 2
        else { return nil }
        return n * unit
    }

    /// Parses a time given on a command line: RFC 3339, `@EPOCH`, or `+DURATION` from now.
    package static func parseArgument(_ text: String, nowSeconds: Int64) -> Int64? {
        if text.hasPrefix("+") { return parseDuration(String(text.dropFirst())).map { nowSeconds + $0 } }
        if text.hasPrefix("@") { return Int64(text.dropFirst()) }
        return parseRFC3339(text)
    }
}

/// A human duration: `42s`, `5m`, `3h`, `2d`.
package func humanDuration(_ seconds: Int64) -> String {
    switch seconds {
    case ..<120: "\(seconds)s"
    case ..<7200: "\(seconds / 60)m"
    case ..<172_800: "\(seconds / 3600)h"
    default: "\(seconds / 86400)d"
    }
}
