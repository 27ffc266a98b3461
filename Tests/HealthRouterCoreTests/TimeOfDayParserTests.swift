import Testing
@testable import HealthRouterCore

@Suite struct TimeOfDayParserTests {
    /// 2024-03-10 08:04:59 +0100, an HRV record's start.
    let morning = Timestamp(epochMilliseconds: 1_710_054_299_000, utcOffsetSeconds: 3600)

    private func resolve(_ text: String, _ reference: Timestamp) -> Int64? {
        TimeOfDayParser.resolve(text, relativeTo: reference)?.epochMilliseconds
    }

    @Test func twelveHourWithFraction() {
        #expect(TimeOfDayParser.resolve("8:05:01.23 AM", relativeTo: morning)
            == Timestamp(epochMilliseconds: 1_710_054_301_230, utcOffsetSeconds: 3600))
        #expect(resolve("08:05:01.23 am", morning) == 1_710_054_301_230)
        #expect(resolve("8:05:01 AM", morning) == 1_710_054_301_000)
        #expect(resolve("8:05 AM", morning) == 1_710_054_300_000)
    }

    @Test func afternoonForms() {
        let afternoon = Timestamp(epochMilliseconds: 1_710_083_830_000, utcOffsetSeconds: 3600) // 16:17:10
        #expect(resolve("4:17:18.57 pm", afternoon) == 1_710_083_838_570)
        #expect(resolve("4:17:18.57 PM", afternoon) == 1_710_083_838_570)
        #expect(resolve("4:17:18.57\u{202F}PM", afternoon) == 1_710_083_838_570)
        #expect(resolve("4:17:18.57\u{00A0}PM", afternoon) == 1_710_083_838_570)
        #expect(resolve("4:17:18.57 p.m.", afternoon) == 1_710_083_838_570)
        let evening = Timestamp(epochMilliseconds: 1_710_090_880_000, utcOffsetSeconds: 3600) // 18:14:40
        #expect(resolve("6:14:48.94\u{202F}PM", evening) == 1_710_090_888_940)
        #expect(resolve("6:14:48.94 PM", evening) == 1_710_090_888_940)
    }

    @Test func twentyFourHourAndCommaDecimal() {
        #expect(resolve("08:33:44,67", morning) == 1_710_056_024_670)
        let evening = Timestamp(epochMilliseconds: 1_710_097_490_000, utcOffsetSeconds: 3600) // 20:04:50
        #expect(resolve("20:05:01.23", evening) == 1_710_097_501_230)
        #expect(resolve("20:05:01,23", evening) == 1_710_097_501_230)
        #expect(resolve("20:05:01.234567", evening) == 1_710_097_501_234)
    }

    /// Finnish, Danish and Indonesian phones separate the fields with dots (`8.14.49,5`); the
    /// seconds are then required, and the separators may not be mixed.
    @Test func dottedFields() {
        #expect(resolve("8.33.44,67", morning) == 1_710_056_024_670)
        #expect(resolve("08.33.44,67", morning) == 1_710_056_024_670)
        #expect(resolve("08.33.44", morning) == 1_710_056_024_000)
        #expect(resolve("8.33.44.67", morning) == 1_710_056_024_670)
        #expect(resolve("8.33", morning) == nil)
        #expect(resolve("8.33:44", morning) == nil)
        #expect(resolve("8:33.44", morning) == nil)
    }

    @Test func eastAsianMarkers() {
        let evening = Timestamp(epochMilliseconds: 1_710_090_880_000, utcOffsetSeconds: 3600)
        #expect(resolve("午後6:14:48.94", evening) == 1_710_090_888_940)
        #expect(resolve("下午6:14:48.94", evening) == 1_710_090_888_940)
        #expect(resolve("오후 6:14:48.94", evening) == 1_710_090_888_940)
        #expect(resolve("午前8:05:01.23", morning) == 1_710_054_301_230)
    }

    @Test func crossesMidnightForward() {
        let lateNight = Timestamp(epochMilliseconds: 1_710_111_590_000, utcOffsetSeconds: 3600) // 23:59:50
        #expect(resolve("11:59:55.00 PM", lateNight) == 1_710_111_595_000)
        #expect(resolve("12:00:02.50 AM", lateNight) == 1_710_111_602_500)
        #expect(resolve("00:00:02,50", lateNight) == 1_710_111_602_500)
    }

    @Test func earlierOnTheSameDayStays() {
        // A beat two seconds before the reference is not moved to tomorrow.
        #expect(resolve("8:04:57 AM", morning) == 1_710_054_297_000)
        // Eleven hours before: still today.
        let evening = Timestamp(epochMilliseconds: morning.epochMilliseconds + 12 * 3_600_000, utcOffsetSeconds: 3600)
        let expected: Int64 = morning.epochMilliseconds + 3_600_000
        #expect(resolve("9:04:59 AM", evening) == expected)
    }

    @Test func justAfterMidnightReferenceTakesBeatsBeforeMidnightFromYesterday() {
        let afterMidnight = Timestamp(epochMilliseconds: 1_710_025_210_000, utcOffsetSeconds: 3600) // 00:00:10
        #expect(resolve("11:59:58 PM", afterMidnight) == 1_710_025_198_000)
        #expect(resolve("00:00:12", afterMidnight) == 1_710_025_212_000)
    }

    @Test func localDayFollowsTheReferenceOffset() {
        // 2024-01-05 21:07:03 -0500 is already 6 January in UTC; the beat belongs to 5 January local.
        let reference = Timestamp(epochMilliseconds: 1_704_506_823_000, utcOffsetSeconds: -18_000)
        #expect(resolve("9:07:05 PM", reference) == 1_704_506_825_000)
        #expect(TimeOfDayParser.resolve("9:07:05 PM", relativeTo: reference)?.utcOffsetSeconds == -18_000)
        // Without an offset the reference is taken as UTC.
        let utc = Timestamp(epochMilliseconds: 1_704_506_823_000)
        #expect(resolve("02:07:05", utc) == 1_704_506_825_000)
        #expect(TimeOfDayParser.resolve("02:07:05", relativeTo: utc)?.utcOffsetSeconds == nil)
    }

    @Test func beforeTheEpoch() {
        let reference = Timestamp(epochMilliseconds: -3_600_000, utcOffsetSeconds: 0) // 1969-12-31 23:00
        #expect(resolve("23:00:01", reference) == -3_599_000)
        #expect(resolve("00:00:01", reference) == 1000)
    }

    @Test func rejectsWhatIsNotATimeOfDay() {
        for text in ["", " ", "abc", "8", "8:", "8:5", "8:5:01", "24:00:00", "23:60:00", "23:59:60", "13:00:00 PM",
                     "0:30:00 AM", "8:05:01.23 XM", "8:05:01.23 AM extra", "8:05:01.", "8:05:01.23.4",
                     "8:05:01 AMPM", "2024-03-10 08:05:01", "-8:05:01", "８:05:01"] {
            #expect(TimeOfDayParser.resolve(text, relativeTo: morning) == nil, "\(text)")
        }
    }
}
