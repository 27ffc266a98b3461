import Testing
@testable import HealthRouterCore

@Suite struct CivilDateTests {
    @Test func roundTripsEveryDayOverFourCenturies() {
        // 1800-01-01 … 2200-01-01, both directions, and consecutive days are consecutive dates.
        let first = CivilDate(year: 1800, month: 1, day: 1).daysSinceEpoch
        let last = CivilDate(year: 2200, month: 1, day: 1).daysSinceEpoch
        var previous = CivilDate(daysSinceEpoch: first - 1)
        var wrongDays: [Int] = []
        for days in first...last {
            let date = CivilDate(daysSinceEpoch: days)
            let follows = date.day == 1
                ? previous.day == CivilDate.daysInMonth(year: previous.year, month: previous.month)
                : previous.day == date.day - 1
            if date.daysSinceEpoch != days || !follows { wrongDays.append(days) }
            previous = date
        }
        #expect(wrongDays.isEmpty)
    }

    @Test func knownDays() {
        #expect(CivilDate(daysSinceEpoch: 0) == CivilDate(year: 1970, month: 1, day: 1))
        #expect(CivilDate(daysSinceEpoch: -1) == CivilDate(year: 1969, month: 12, day: 31))
        #expect(CivilDate(daysSinceEpoch: 19_782) == CivilDate(year: 2024, month: 2, day: 29))
        #expect(CivilDate.isLeapYear(2000) && !CivilDate.isLeapYear(1900) && CivilDate.isLeapYear(2024))
        #expect(CivilDate.daysInMonth(year: 2024, month: 13) == 0)
    }
}
