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
        let plugin = try ReadmeSQL.statements(in: "Plugins/SQLiteSink/README.md")
        #expect(plugin.count >= 5)
        for sql in plugin {
            if case .failure(let error) = Self.rows(sql, in: store) { Issue.record("\(error): \(sql)") }
        }
    }
}
