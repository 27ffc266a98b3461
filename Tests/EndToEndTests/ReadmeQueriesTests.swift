import TestSupport
import Foundation
import Testing
import HealthRouterCore

/// The sqlite3 queries the READMEs show run, as printed, on the store an import of the bundled
/// sample export makes: the tour's queries each return rows; the plugin README's (some of them
/// about the last 30 days, which the sample predates) run without an error.
@Suite struct ReadmeQueriesTests {
    /// Rows `sql` returns from `store`, or the error it raised.
    static func rows(_ sql: String, in store: SQLiteDatabase) -> Result<Int, Error> {
        Result {
            let statement = try store.prepare(sql)
            var count = 0
            while try statement.step() { count += 1 }
            return count
        }
    }

    @Test func theQueriesTheReadmesShowRunOnAnImportedStore() throws {
        let directory = makeTemporaryDirectory()
        let config = try writeConfig("""
            state_directory: \(directory)/state
            sinks:
              local: { type: sqlite, path: \(directory)/health.sqlite }
            """, in: directory)
        let imported = try CommandRunner.run(["import", CommandRunner.repository + "/samples/export.zip", "--config", config, "-q"],
                                             in: directory)
        #expect(imported.status == 0, "\(imported.stdout)\(imported.stderr)")
        let store = try SQLiteDatabase(path: directory + "/health.sqlite", readOnly: true)

        let tour = try ReadmeSQL.statements(in: "README.md")
        #expect(tour.count >= 6)
        for sql in tour {
            switch Self.rows(sql, in: store) {
            case .success(let count): #expect(count > 0, "no rows: \(sql)")
            case .failure(let error): Issue.record("\(error): \(sql)")
            }
        }
        // The weekly query's answer: the mean of each Monday-to-Sunday week of local days.
        let weekly = try #require(tour.first { $0.contains("RestingHeartRate") && $0.contains("AS week") })
        var expected: [String: [Double]] = [:]
        let readings = try store.prepare("""
            SELECT start_at, coalesce(start_utc_offset, 0), value FROM samples
            WHERE type = 'HKQuantityTypeIdentifierRestingHeartRate'
            """)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        while try readings.step() {
            let text = try #require(readings.string(0))
            let instant = try #require(formatter.date(from: text))
            let local = instant.addingTimeInterval(Double(readings.int64(1)))
            let daysSinceMonday = (calendar.component(.weekday, from: local) + 5) % 7
            let monday = calendar.date(byAdding: .day, value: -daysSinceMonday, to: local)!
            let name = String(format: "%04d-%02d-%02d", calendar.component(.year, from: monday),
                              calendar.component(.month, from: monday), calendar.component(.day, from: monday))
            expected[name, default: []].append(readings.double(2))
        }
        #expect(expected.count >= 2, "the sample's resting heart rates span one week only")
        var answered: [String: Double] = [:]
        let weeks = try store.prepare(weekly)
        while try weeks.step() { answered[weeks.string(0) ?? "NULL"] = weeks.double(1) }
        #expect(answered == expected.mapValues { values in (values.reduce(0, +) / Double(values.count) * 10).rounded() / 10 })

        let plugin = try ReadmeSQL.statements(in: "Plugins/SQLiteSink/README.md")
        #expect(plugin.count >= 5)
        // The push source's README shows one for Health Auto Export's records.
        let push = try ReadmeSQL.statements(in: "Plugins/HTTPPushSource/README.md")
        #expect(push.contains { $0.contains("HealthAutoExport_medications") })
        for sql in plugin + push {
            if case .failure(let error) = Self.rows(sql, in: store) { Issue.record("\(error): \(sql)") }
        }
    }
}
