import Testing
@testable import HealthRouterCore

@Suite struct TimestampFormatterTests {
    let pulsoExample = Timestamp(epochMilliseconds: 1_783_296_720_000, utcOffsetSeconds: 3600)

    @Test func iso8601() {
        #expect(TimestampFormatter.iso8601(pulsoExample) == "2026-07-06T01:12:00+01:00")
        #expect(TimestampFormatter.iso8601(Timestamp(epochMilliseconds: 1_783_296_720_250, utcOffsetSeconds: 3600))
            == "2026-07-06T01:12:00.250+01:00")
        #expect(TimestampFormatter.iso8601(Timestamp(epochMilliseconds: 1_783_296_720_007, utcOffsetSeconds: 0))
            == "2026-07-06T00:12:00.007Z")
        #expect(TimestampFormatter.iso8601(Timestamp(epochMilliseconds: 1_783_296_720_000)) == "2026-07-06T00:12:00Z")
        #expect(TimestampFormatter.iso8601(Timestamp(epochSeconds: 1_704_506_823, utcOffsetSeconds: -18_000))
            == "2024-01-05T21:07:03-05:00")
        #expect(TimestampFormatter.iso8601(Timestamp(epochSeconds: 1_704_429_000, utcOffsetSeconds: 19_800))
            == "2024-01-05T10:00:00+05:30")
        #expect(TimestampFormatter.iso8601(Timestamp(epochSeconds: 1_704_429_000, utcOffsetSeconds: -34_200))
            == "2024-01-04T19:00:00-09:30")
        #expect(TimestampFormatter.iso8601(Timestamp(epochMilliseconds: 0)) == "1970-01-01T00:00:00Z")
        #expect(TimestampFormatter.iso8601(Timestamp(epochMilliseconds: -1)) == "1969-12-31T23:59:59.999Z")
    }

    @Test func offsetsWithSecondsAreTruncatedToMinutes() {
        // Amsterdam's 1937 offset +00:19:32: written as +00:19, and the clock agrees with it.
        let text = TimestampFormatter.iso8601(Timestamp(epochSeconds: 0, utcOffsetSeconds: 1172))
        #expect(text == "1970-01-01T00:19:00+00:19")
        #expect(HealthDateParser.parse(text)?.epochMilliseconds == 0)
    }

    @Test func unusualYears() {
        let year10000 = Int64(CivilDate(year: 10_000, month: 1, day: 1).daysSinceEpoch) * 86_400_000
        #expect(TimestampFormatter.iso8601(Timestamp(epochMilliseconds: year10000)) == "10000-01-01T00:00:00Z")
        let year5 = Int64(CivilDate(year: 5, month: 3, day: 1).daysSinceEpoch) * 86_400_000
        #expect(TimestampFormatter.date(Timestamp(epochMilliseconds: year5)) == "0005-03-01")
        let beforeYearZero = Int64(CivilDate(year: -44, month: 3, day: 15).daysSinceEpoch) * 86_400_000
        #expect(TimestampFormatter.date(Timestamp(epochMilliseconds: beforeYearZero)) == "-0044-03-15")
    }

    @Test func localDate() {
        #expect(TimestampFormatter.date(pulsoExample) == "2026-07-06")
        // 00:12 UTC on 6 July is still 5 July in New York.
        #expect(TimestampFormatter.date(Timestamp(epochMilliseconds: 1_783_296_720_000, utcOffsetSeconds: -14_400)) == "2026-07-05")
        #expect(TimestampFormatter.date(Timestamp(epochMilliseconds: 1_783_296_720_000)) == "2026-07-06")
        // A date-only value comes back as the same day.
        #expect(TimestampFormatter.date(HealthDateParser.parse("2024-02-29")!) == "2024-02-29")
    }

    @Test func exportStyle() {
        #expect(TimestampFormatter.exportStyle(Timestamp(epochSeconds: 1_672_588_800, utcOffsetSeconds: -28_800))
            == "2023-01-01 08:00:00 -0800")
        #expect(TimestampFormatter.exportStyle(Timestamp(epochMilliseconds: 1_783_296_720_999, utcOffsetSeconds: 3600))
            == "2026-07-06 01:12:00 +0100")
        #expect(TimestampFormatter.exportStyle(Timestamp(epochMilliseconds: 1_783_296_720_000)) == "2026-07-06 00:12:00 +0000")
        #expect(TimestampFormatter.exportStyle(Timestamp(epochSeconds: 1_704_429_000, utcOffsetSeconds: -34_200))
            == "2024-01-04 19:00:00 -0930")
    }

    @Test func appendsBytes() {
        var bytes = Array("start=".utf8)
        TimestampFormatter.appendISO8601(pulsoExample, to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == "start=2026-07-06T01:12:00+01:00")
    }

    @Test func roundTripsThroughTheParser() {
        // A deterministic spread of instants (1901–2099) and offsets (−12:00 … +14:00 in quarter hours).
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var failures: [String] = []
        for _ in 0..<5000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let milliseconds = Int64(bitPattern: state >> 1) % 6_300_000_000_000 - 2_150_000_000_000
            let offset = Int32(Int64(bitPattern: state >> 40) % 105 - 48) * 900
            let withMilliseconds = Timestamp(epochMilliseconds: milliseconds, utcOffsetSeconds: offset)
            let iso = TimestampFormatter.iso8601(withMilliseconds)
            if HealthDateParser.parse(iso) != withMilliseconds { failures.append(iso) }

            let seconds = Timestamp(epochMilliseconds: milliseconds - ((milliseconds % 1000) + 1000) % 1000,
                                    utcOffsetSeconds: offset)
            let export = TimestampFormatter.exportStyle(seconds)
            if HealthDateParser.parse(export) != seconds { failures.append(export) }
            if HealthDateParser.parse(TimestampFormatter.date(seconds))
                .map(TimestampFormatter.date) != TimestampFormatter.date(seconds) { failures.append(export) }
        }
        #expect(failures.isEmpty, "\(failures.prefix(5))")
    }

    @Test func parsedTextFormatsBackUnchanged() {
        for text in ["2026-07-06T01:12:00+01:00", "2024-01-05T21:07:03-05:00", "2026-07-06T00:12:00Z",
                     "2026-07-06T01:12:00.250+01:00", "2024-02-29T23:59:59.999+14:00"] {
            #expect(HealthDateParser.parse(text).map(TimestampFormatter.iso8601) == text)
        }
        #expect(HealthDateParser.parse("2023-01-01 08:00:00 -0800").map(TimestampFormatter.exportStyle)
            == "2023-01-01 08:00:00 -0800")
    }
}
