import Testing
@testable import HealthRouterCore

@Suite struct HealthDateParserTests {
    /// 2026-07-06T01:12:00+01:00.
    let pulsoExample: Int64 = 1_783_296_720_000
    /// 2024-01-05T21:07:03-05:00.
    let evening: Int64 = 1_704_506_823_000

    @Test func exportStyle() {
        #expect(HealthDateParser.parse("2023-01-01 08:00:00 -0800")
            == Timestamp(epochSeconds: 1_672_588_800, utcOffsetSeconds: -28_800))
        #expect(HealthDateParser.parse("2026-07-06 01:12:00 +0100")
            == Timestamp(epochMilliseconds: pulsoExample, utcOffsetSeconds: 3600))
        #expect(HealthDateParser.parse("2024-01-05 10:00:00 +0530")
            == Timestamp(epochMilliseconds: 1_704_429_000_000, utcOffsetSeconds: 19_800))
        #expect(HealthDateParser.parse("1969-12-31 23:59:59 +0000")
            == Timestamp(epochMilliseconds: -1000, utcOffsetSeconds: 0))
    }

    /// An instant outside the UTC years 0000–9999 is no date, whatever its local year: every
    /// store holds those years only (a push of `9999-12-31T23:59:59-23:59` was answered 200, then
    /// refused by the store). The edges themselves are dates.
    @Test func instantsOutsideTheYears0000To9999AreNoDates() {
        for outside in ["9999-12-31T23:59:59-23:59", "9999-12-31 23:00:00 -0100", "0000-01-01 00:00:00 +0100",
                        "0000-01-01T00:59:59+01:00", "99991231235959-0001"] {
            #expect(HealthDateParser.parse(outside) == nil, "\(outside)")
        }
        #expect(HealthDateParser.parse("0000-01-01T00:00:00Z")?.epochMilliseconds == -62_167_219_200_000)
        #expect(HealthDateParser.parse("0000-01-01 01:00:00 +0100")?.epochMilliseconds == -62_167_219_200_000)
        #expect(HealthDateParser.parse("9999-12-31T23:59:59.999Z")?.epochMilliseconds == 253_402_300_799_999)
        #expect(HealthDateParser.parse("9999-12-31 22:59:59 -0100")?.epochMilliseconds == 253_402_300_799_000)
        // A date alone, or a time without an offset, is read as UTC: within the years by its own.
        #expect(HealthDateParser.parse("9999-12-31") != nil && HealthDateParser.parse("0000-01-01T00:00:00") != nil)
    }

    /// Exports of iOS 8 and 9: `yyyyMMddHHmmss±hhmm`.
    @Test func compactStyle() {
        #expect(HealthDateParser.parse("20230101080000-0800")
            == Timestamp(epochSeconds: 1_672_588_800, utcOffsetSeconds: -28_800))
        #expect(HealthDateParser.parse("20260706011200+0100")
            == Timestamp(epochMilliseconds: pulsoExample, utcOffsetSeconds: 3600))
        for wrong in ["20230101080000 0800", "20231301080000-0800", "20230230080000-0800", "20230101240000-0800",
                      "2023010108000x-0800", "20230101080000-08000", "20230101080000+2400"] {
            #expect(HealthDateParser.parse(wrong) == nil, "\(wrong)")
        }
    }

    @Test func bytesAndArrays() {
        let text = "2023-01-01 08:00:00 -0800"
        let expected = Timestamp(epochSeconds: 1_672_588_800, utcOffsetSeconds: -28_800)
        #expect(HealthDateParser.parse(Array(text.utf8)) == expected)
        let fromBuffer = Array(text.utf8).withUnsafeBufferPointer { HealthDateParser.parse($0) }
        #expect(fromBuffer == expected)
        // A bridged or substring-made String goes through the copying path.
        #expect(HealthDateParser.parse(String("x2023-01-01 08:00:00 -0800".dropFirst())) == expected)
    }

    @Test func iso8601Offsets() {
        let plusOne = Timestamp(epochMilliseconds: pulsoExample, utcOffsetSeconds: 3600)
        #expect(HealthDateParser.parse("2026-07-06T01:12:00+01:00") == plusOne)
        #expect(HealthDateParser.parse("2026-07-06T01:12:00+0100") == plusOne)
        #expect(HealthDateParser.parse("2026-07-06T01:12:00+01") == plusOne)
        #expect(HealthDateParser.parse("2026-07-06 01:12:00+01:00") == plusOne)
        #expect(HealthDateParser.parse("2026-07-06t01:12:00+01:00") == plusOne)
        #expect(HealthDateParser.parse("2026-07-06T01:12:00 +01:00") == plusOne)
        #expect(HealthDateParser.parse("2026-07-06T01:12:00UTC+01:00") == plusOne)
        #expect(HealthDateParser.parse("2026-07-06T01:12+01:00") == plusOne)
        let evening = Timestamp(epochMilliseconds: evening, utcOffsetSeconds: -18_000)
        #expect(HealthDateParser.parse("2024-01-05T21:07:03-05:00") == evening)
        #expect(HealthDateParser.parse("2024-01-05T21:07:03\u{2212}05:00") == evening)
        #expect(HealthDateParser.parse("2024-01-05T21:07:03-0500") == evening)
        #expect(HealthDateParser.parse("2024-01-05T21:07:03-05") == evening)
    }

    @Test func utcDesignators() {
        let utc = Timestamp(epochMilliseconds: pulsoExample, utcOffsetSeconds: 0)
        #expect(HealthDateParser.parse("2026-07-06T00:12:00Z") == utc)
        #expect(HealthDateParser.parse("2026-07-06T00:12:00z") == utc)
        #expect(HealthDateParser.parse("2026-07-06T00:12:00+00:00") == utc)
        #expect(HealthDateParser.parse("2026-07-06T00:12:00-00:00") == utc)
        #expect(HealthDateParser.parse("2026-07-06 00:12:00 UTC") == utc)
        #expect(HealthDateParser.parse("2026-07-06 00:12:00 GMT") == utc)
        #expect(HealthDateParser.parse("  2026-07-06T00:12:00Z\n") == utc)
    }

    @Test func fractionalSeconds() {
        let base: Int64 = 1_783_296_720_000
        #expect(HealthDateParser.parse("2026-07-06T01:12:00.5+01:00")?.epochMilliseconds == base + 500)
        #expect(HealthDateParser.parse("2026-07-06T01:12:00.123456+01:00")?.epochMilliseconds == base + 123)
        #expect(HealthDateParser.parse("2026-07-06T01:12:00.999999999Z")?.epochMilliseconds == base + 3_600_000 + 999)
        #expect(HealthDateParser.parse("2026-07-06T01:12:00,25+01:00")?.epochMilliseconds == base + 250)
        #expect(HealthDateParser.parse("2026-07-06T01:12:00.000+01:00")?.epochMilliseconds == base)
        #expect(HealthDateParser.parse("2026-07-06T01:12:00.+01:00") == nil)
        #expect(HealthDateParser.parse("2026-07-06T01:12:00.5.5+01:00") == nil)
    }

    @Test func dateOnlyIsMidnightUTCWithoutOffset() {
        #expect(HealthDateParser.parse("2024-01-05") == Timestamp(epochMilliseconds: 1_704_412_800_000, utcOffsetSeconds: nil))
        #expect(HealthDateParser.parse("2024-02-29")?.epochMilliseconds == 1_709_164_800_000)
    }

    @Test func localTimeWithoutOffsetIsUTCWithoutOffset() {
        #expect(HealthDateParser.parse("2024-01-05T00:00:00") == Timestamp(epochMilliseconds: 1_704_412_800_000))
        #expect(HealthDateParser.parse("2024-01-05 09:07:03 PM")
            == Timestamp(epochMilliseconds: 1_704_412_800_000 + 76_023_000))
    }

    @Test func healthAutoExportTwelveHour() {
        let expected = Timestamp(epochMilliseconds: evening, utcOffsetSeconds: -18_000)
        #expect(HealthDateParser.parse("2024-01-05 9:07:03 PM -0500") == expected)
        #expect(HealthDateParser.parse("2024-01-05 09:07:03 PM -0500") == expected)
        #expect(HealthDateParser.parse("2024-01-05 9:07:03 pm -0500") == expected)
        #expect(HealthDateParser.parse("2024-01-05 9:07:03 p.m. -0500") == expected)
        #expect(HealthDateParser.parse("2024-01-05 9:07:03\u{202F}PM -0500") == expected)
        #expect(HealthDateParser.parse("2024-01-05 9:07:03\u{00A0}PM -0500") == expected)
        #expect(HealthDateParser.parse("2024-01-05 9:07:03\u{202F}pm -0500") == expected)
        #expect(HealthDateParser.parse("2024-01-05 9:07:03PM -0500") == expected)
        #expect(HealthDateParser.parse("2024-01-05 9:07:03 PM\u{202F}-0500") == expected)
    }

    @Test func twelveHourEdges() {
        // 12 AM is midnight, 12 PM is noon.
        #expect(HealthDateParser.parse("2024-01-05 12:07:03 AM -0500")?.epochMilliseconds == 1_704_431_223_000)
        #expect(HealthDateParser.parse("2024-01-05 12:07:03 PM -0500")?.epochMilliseconds == 1_704_474_423_000)
        #expect(HealthDateParser.parse("2024-01-05 0:07:03 AM -0500") == nil)
        #expect(HealthDateParser.parse("2024-01-05 13:07:03 PM -0500") == nil)
        #expect(HealthDateParser.parse("2024-01-05 9:07:03 PMX -0500") == nil)
    }

    @Test func calendarValidation() {
        #expect(HealthDateParser.parse("2024-02-29 00:00:00 +0000") != nil)
        #expect(HealthDateParser.parse("2023-02-29 00:00:00 +0000") == nil)
        #expect(HealthDateParser.parse("1900-02-29") == nil)
        #expect(HealthDateParser.parse("2000-02-29") != nil)
        #expect(HealthDateParser.parse("2024-04-31") == nil)
        #expect(HealthDateParser.parse("2024-13-01 00:00:00 +0000") == nil)
        #expect(HealthDateParser.parse("2024-00-01 00:00:00 +0000") == nil)
        #expect(HealthDateParser.parse("2024-01-00 00:00:00 +0000") == nil)
        #expect(HealthDateParser.parse("2024-01-32") == nil)
        #expect(HealthDateParser.parse("2024-01-05 24:00:00 +0000") == nil)
        #expect(HealthDateParser.parse("2024-01-05 23:60:00 +0000") == nil)
        #expect(HealthDateParser.parse("2024-01-05 23:59:60 +0000") == nil)
        #expect(HealthDateParser.parse("2024-01-05 23:59:59 +2400") == nil)
        #expect(HealthDateParser.parse("2024-01-05 23:59:59 +0160") == nil)
    }

    @Test func rejectsGarbage() {
        let garbage = [
            "", " ", "garbage", "2024", "2024-01", "2024-1-05", "24-01-05", "2024/01/05", "20240105", "2024-01-05 T",
            "2024-01-05T", "2024-01-05X10:00:00Z", "2024-01-05 10", "2024-01-05 10:0",
            "2024-01-05 10:00:0 +0000", "2024-01-05 10:00:00 +000", "2024-01-05 10:00:00 +0", "2024-01-05 10:00:00 0000",
            "2024-01-05 10:00:00 +01:0", "2024-01-05 10:00:00 +01:00:00", "2024-01-05 10:00:00 -0800x",
            "2024-01-05 10:00:00 -0800 extra", "2024-0a-05 10:00:00 +0000", "2O24-01-05 10:00:00 +0000",
            "2024-01-05 1a:00:00 +0000", "2024-01-05 10:00:00 -08a0", "2024-01-05 10:00:00 Q",
            "2024-01-05T10:00:00ZZ", "2024-01-05 10:00:00 AM AM", "２０２４-01-05",
        ]
        for text in garbage {
            #expect(HealthDateParser.parse(text) == nil, "\(text)")
        }
    }

    @Test func daysFromCivilMatchesCivilDate() {
        #expect(HealthDateParser.daysFromCivil(year: 1970, month: 1, day: 1) == 0)
        #expect(HealthDateParser.daysFromCivil(year: 2000, month: 3, day: 1) == 11_017)
        #expect(HealthDateParser.daysFromCivil(year: 1969, month: 12, day: 31) == -1)
    }
}
