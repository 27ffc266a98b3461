import Foundation
import Testing
@testable import HealthRouterCore

/// What a daemon's sink worker logs while it catches up a backlog: counted from sequence numbers,
/// a line at its start, one at most every 30 s, and one at its end.
@Suite struct CatchUpReportTests {
    @Test func aSmallBacklogIsNotSaid() {
        #expect(CatchUpReport(cursor: 100, head: 100 + 9_999, written: 0) == nil)
        #expect(CatchUpReport(cursor: 100, head: 100 + 10_000, written: 0) != nil)
    }

    @Test func startProgressAtMostEvery30sAndTheEnd() throws {
        let start = Date(timeIntervalSince1970: 1_000_000)
        var report = try #require(CatchUpReport(cursor: 1_000, head: 4_001_000, written: 50, now: start))
        let first = report.startLine
        #expect(first.message.hasPrefix("catching up"))
        #expect(first.numbers.map(\.0) == ["entries", "cursor", "head"] && first.numbers.map(\.1) == [4_000_000, 1_000, 4_001_000])

        // Within 30 s of the last line: nothing.
        #expect(report.line(cursor: 500_000, written: 400_050, now: start + 29) == nil)
        let said = report.line(cursor: 1_001_000, written: 900_050, now: start + 30)
        let progress = try #require(said)
        #expect(progress.message == "catching up")
        #expect(progress.numbers.map(\.0) == ["percent", "entries_done", "entries", "rows_written"])
        #expect(progress.numbers.map(\.1) == [25, 1_000_000, 4_000_000, 900_000])
        #expect(progress.fields.map(\.0) == ["eta"] && progress.fields.map(\.1) == ["1m30s"])
        #expect(report.line(cursor: 2_000_000, written: 1_800_050, now: start + 59) == nil)
        #expect(report.line(cursor: 2_000_000, written: 1_800_050, now: start + 60)?.message == "catching up")

        // The head of the start reached (entries pushed since are not waited for): caught up.
        let last = report.line(cursor: 4_001_500, written: 3_600_050, now: start + 91)
        let end = try #require(last)
        #expect(end.message == "caught up")
        #expect(end.numbers.map(\.0) == ["seconds", "entries", "rows_written"])
        #expect(end.numbers.map(\.1) == [LogNumber(91.0, places: 1), 4_000_000, 3_600_000] && end.fields.isEmpty)
    }

    /// A worker that found nothing more to read before the head (sequence numbers no entry took)
    /// has caught up too.
    @Test func nothingMoreToReadIsCaughtUp() throws {
        var report = try #require(CatchUpReport(cursor: 0, head: 20_000, written: 0, now: Date()))
        #expect(report.line(cursor: 19_990, written: 19_990, idle: true)?.message == "caught up")
    }
}
