import Testing
@testable import SpoolSystem

/// RFC 3339 reading and writing, durations, command-line times and human durations, against known instants.
@Suite struct TimestampTests {
    /// 2026-11-29T13:00:00Z, as `date -u -d 2026-11-29T13:00:00Z +%s` gives it.
    static let reference: Int64 = 1_795_957_200

    @Test func readsUTCWithEitherCaseOfZAndSeparator() {
        #expect(Timestamp.parseRFC3339("2026-11-29T13:00:00Z") == Self.reference)
        #expect(Timestamp.parseRFC3339("2026-11-29T13:00:00z") == Self.reference)
        #expect(Timestamp.parseRFC3339("2026-11-29t13:00:00Z") == Self.reference)
        #expect(Timestamp.parseRFC3339("2026-11-29 13:00:00Z") == Self.reference)
        #expect(Timestamp.parseRFC3339("1970-01-01T00:00:00Z") == 0)
        #expect(Timestamp.parseRFC3339("1969-12-31T23:59:59Z") == -1)
        #expect(Timestamp.parseRFC3339("1900-01-01T00:00:00Z") == -2_208_988_800)
        #expect(Timestamp.parseRFC3339("2100-03-01T00:00:00Z") == 4_107_542_400)
    }

    @Test func offsetsAreSubtracted() {
        #expect(Timestamp.parseRFC3339("2026-11-29T14:00:00+01:00") == Self.reference)
        #expect(Timestamp.parseRFC3339("2026-11-29T07:30:00-05:30") == Self.reference)
        #expect(Timestamp.parseRFC3339("2026-11-30T00:30:00+11:30") == Self.reference, "across midnight")
        #expect(Timestamp.parseRFC3339("2026-11-29T13:00:00+00:00") == Self.reference)
        #expect(Timestamp.parseRFC3339("2026-11-29T13:00:00-00:00") == Self.reference)
        #expect(Timestamp.parseRFC3339("2026-11-29T13:00:00+23:59") == Self.reference - 86_340)
    }

    @Test func fractionsAreIgnoredNotRounded() {
        #expect(Timestamp.parseRFC3339("2026-11-29T13:00:00.5Z") == Self.reference)
        #expect(Timestamp.parseRFC3339("2026-11-29T13:00:00.999999999Z") == Self.reference)
        #expect(Timestamp.parseRFC3339("2026-11-29T14:00:00.123+01:00") == Self.reference)
        #expect(Timestamp.parseRFC3339("2026-11-29T13:00:00.Z") == nil, "a dot needs a digit")
    }

    @Test func aLeapSecondCountsAsTheSecondBefore() {
        #expect(Timestamp.parseRFC3339("2016-12-31T23:59:60Z") == 1_483_228_799)
        #expect(Timestamp.parseRFC3339("2016-12-31T23:59:59Z") == 1_483_228_799)
        #expect(Timestamp.parseRFC3339("2017-01-01T00:00:00Z") == 1_483_228_800)
    }

    @Test func leapDaysAreValidOnlyInLeapYears() {
        #expect(Timestamp.parseRFC3339("2000-02-29T00:00:00Z") == 951_782_400)
        #expect(Timestamp.parseRFC3339("2024-02-29T12:34:56Z") == 1_709_210_096)
        #expect(Timestamp.parseRFC3339("2023-02-29T00:00:00Z") == nil)
        #expect(Timestamp.parseRFC3339("1900-02-29T00:00:00Z") == nil, "a century is not a leap year")
        #expect(Timestamp.parseRFC3339("2100-02-29T00:00:00Z") == nil)
    }

    @Test(arguments: [
        "2026-02-30T00:00:00Z", "2026-04-31T00:00:00Z", "2026-13-01T00:00:00Z", "2026-00-10T00:00:00Z",
        "2026-01-00T00:00:00Z", "2026-01-32T00:00:00Z", "2026-01-01T24:00:00Z", "2026-01-01T23:60:00Z",
        "2026-01-01T23:59:61Z", "2026-1a-01T00:00:00Z", "2026/01/01T00:00:00Z", "2026-01-01X00:00:00Z",
        "2026-01-01T00-00-00Z",
    ])
    func invalidDatesAndTimesAreRefused(_ text: String) {
        #expect(Timestamp.parseRFC3339(text) == nil)
    }

    @Test(arguments: [
        "", "2026-11-29", "2026-11-29T13:00:00", "2026-11-29T13:00:00.5", "2026-11-29T13:00Z",
        "2026-11-29T13:00:00Z ", " 2026-11-29T13:00:00Z", "2026-11-29T13:00:00Zjunk", "2026-11-29T13:00:00ZZ",
        "2026-11-29T13:00:00+01:00x", "2026-11-29T13:00:00+01", "2026-11-29T13:00:00+0100",
        "2026-11-29T13:00:00+24:00", "2026-11-29T13:00:00+01:60", "2026-11-29T13:00:00+1:00",
        "2026-11-29T13:00:00 UTC", "2026-11-29T13:00:00Y",
    ])
    func missingOrMalformedZonesAndTrailingJunkAreRefused(_ text: String) {
        #expect(Timestamp.parseRFC3339(text) == nil)
    }

    @Test func formatsKnownInstants() {
        #expect(Timestamp.formatRFC3339(0) == "1970-01-01T00:00:00Z")
        #expect(Timestamp.formatRFC3339(-1) == "1969-12-31T23:59:59Z")
        #expect(Timestamp.formatRFC3339(Self.reference) == "2026-11-29T13:00:00Z")
        #expect(Timestamp.formatRFC3339(951_782_400) == "2000-02-29T00:00:00Z")
        #expect(Timestamp.formatRFC3339(-2_208_988_800) == "1900-01-01T00:00:00Z")
        #expect(Timestamp.formatRFC3339(-11_644_473_600) == "1601-01-01T00:00:00Z")
        #expect(Timestamp.formatRFC3339(4_107_542_400) == "2100-03-01T00:00:00Z")
    }

    @Test func formatAndParseRoundTripFrom1900To2100() {
        // gmtime_r writes, the civil-days arithmetic reads: two implementations checked against each other.
        var failures: [Int64] = []
        for seconds in stride(from: Int64(-2_208_988_800), through: 4_107_542_400, by: 102_953) {
            if Timestamp.parseRFC3339(Timestamp.formatRFC3339(seconds)) != seconds { failures.append(seconds) }
        }
        // Every leap day and the days around it, 1904 to 2096, at the last second of the day.
        for year in stride(from: 1904, through: 2096, by: 4) {
            let day = Int64(Timestamp.daysFromCivil(year: year, month: 2, day: 29))
            for seconds in [day * 86_400 - 1, day * 86_400, day * 86_400 + 86_399, day * 86_400 + 86_400] {
                if Timestamp.parseRFC3339(Timestamp.formatRFC3339(seconds)) != seconds { failures.append(seconds) }
            }
            #expect(Timestamp.formatRFC3339(day * 86_400).hasPrefix("\(year)-02-29T00:00:00"))
        }
        #expect(failures.isEmpty, "\(failures.prefix(5).map { ($0, Timestamp.formatRFC3339($0)) })")
    }

    @Test func daysFromCivilMatchesKnownDates() {
        #expect(Timestamp.daysFromCivil(year: 1970, month: 1, day: 1) == 0)
        #expect(Timestamp.daysFromCivil(year: 1969, month: 12, day: 31) == -1)
        #expect(Timestamp.daysFromCivil(year: 2000, month: 1, day: 1) == 10_957)
        #expect(Timestamp.daysFromCivil(year: 2000, month: 3, day: 1) == 11_017)
        #expect(Timestamp.daysFromCivil(year: 2038, month: 1, day: 19) == 24_855)
        #expect(Timestamp.daysFromCivil(year: 2026, month: 11, day: 29) == 20_786)
        #expect(Timestamp.daysFromCivil(year: 1600, month: 3, day: 1) == -135_080)
        #expect(Timestamp.daysFromCivil(year: 1, month: 1, day: 1) == -719_162)
    }

    @Test func daysInMonthKnowsTheGregorianLeapRule() {
        #expect(Timestamp.daysInMonth(year: 2024, month: 2) == 29)
        #expect(Timestamp.daysInMonth(year: 2023, month: 2) == 28)
        #expect(Timestamp.daysInMonth(year: 1900, month: 2) == 28)
        #expect(Timestamp.daysInMonth(year: 2000, month: 2) == 29)
        #expect([4, 6, 9, 11].map { Timestamp.daysInMonth(year: 2026, month: $0) } == [30, 30, 30, 30])
        #expect([1, 3, 5, 7, 8, 10, 12].allSatisfy { Timestamp.daysInMonth(year: 2026, month: $0) == 31 })
    }

    @Test func durationsInEachUnit() {
        #expect(Timestamp.parseDuration("90") == 90)
        #expect(Timestamp.parseDuration("90s") == 90)
        #expect(Timestamp.parseDuration("15m") == 900)
        #expect(Timestamp.parseDuration("2h") == 7200)
        #expect(Timestamp.parseDuration("5d") == 432_000)
        #expect(Timestamp.parseDuration("0") == 0)
        #expect(Timestamp.parseDuration("0s") == 0)
    }

    @Test(arguments: [
        "", "m", "s", "-1", "-1m", "1.5h", "1.5", "5D", "5M", "5ms", "5 m", " 5", "5w", "1e3",
        "9999999999999999999d", "9999999999999999999", "٥m",
    ])
    func malformedOrOverflowingDurationsAreRefused(_ text: String) {
        #expect(Timestamp.parseDuration(text) == nil)
    }

    @Test func durationsStayFarFromOverflow() {
        // Accepted durations are below half of Int64.max, so that adding one to a time cannot overflow.
        let days = Int64.max / 86_400 / 2
        #expect(Timestamp.parseDuration("\(days - 1)d") == (days - 1) * 86_400)
        #expect(Timestamp.parseDuration("\(days)d") == nil)
        let seconds = Int64.max / 2
        #expect(Timestamp.parseDuration("\(seconds - 1)") == seconds - 1)
        #expect(Timestamp.parseDuration("\(seconds)") == nil)
    }

    @Test func commandLineTimes() {
        let nowSeconds: Int64 = 1_000_000
        #expect(Timestamp.parseArgument("+5m", nowSeconds: nowSeconds) == 1_000_300)
        #expect(Timestamp.parseArgument("+90", nowSeconds: nowSeconds) == 1_000_090)
        #expect(Timestamp.parseArgument("+2d", nowSeconds: nowSeconds) == 1_172_800)
        #expect(Timestamp.parseArgument("@123", nowSeconds: nowSeconds) == 123)
        #expect(Timestamp.parseArgument("@0", nowSeconds: nowSeconds) == 0)
        #expect(Timestamp.parseArgument("2026-11-29T13:00:00Z", nowSeconds: nowSeconds) == Self.reference)
        #expect(Timestamp.parseArgument("2026-11-29T14:00:00+01:00", nowSeconds: nowSeconds) == Self.reference)
        for bad in ["+", "+-1m", "+1.5h", "@", "@12x", "@1.5", "5m", "90", "tomorrow", ""] {
            #expect(Timestamp.parseArgument(bad, nowSeconds: nowSeconds) == nil, "\(bad)")
        }
    }

    @Test func humanDurationsChangeUnitAtTwoOfTheNext() {
        #expect(humanDuration(0) == "0s")
        #expect(humanDuration(119) == "119s")
        #expect(humanDuration(120) == "2m")
        #expect(humanDuration(7199) == "119m")
        #expect(humanDuration(7200) == "2h")
        #expect(humanDuration(172_799) == "47h")
        #expect(humanDuration(172_800) == "2d")
        #expect(humanDuration(10 * 86_400 + 86_399) == "10d")
    }

    @Test func theClocksAgree() {
        let before = Timestamp.nowMicroseconds()
        let seconds = Timestamp.nowSeconds()
        let fractional = Timestamp.nowFractionalSeconds()
        let after = Timestamp.nowMicroseconds()
        #expect(before / 1_000_000 <= seconds && seconds <= after / 1_000_000)
        #expect(Double(before) / 1e6 <= fractional && fractional <= Double(after) / 1e6)
        let first = Timestamp.monotonicSeconds(), second = Timestamp.monotonicSeconds()
        #expect(first > 0 && second >= first)
    }
}
