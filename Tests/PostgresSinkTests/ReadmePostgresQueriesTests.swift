import Foundation
import Testing
import PostgresClient
import TestSupport

/// The dashboard queries the postgres and timescaledb sinks' READMEs show (their `## Queries`
/// sections) run as printed on the stores an import of the bundled sample export makes, and each
/// returns rows.
@Suite struct ReadmePostgresQueriesTests {
    @Test func theQueriesTheReadmesShowReturnRows() throws {
        guard let url = PostgresTestDatabase.url else { return }
        let schema = PostgresTestDatabase.freshSchema()
        let directory = makeTemporaryDirectory("readme-pg")
        // The postgres sink's README filters on its example's user_id.
        let config = try writeConfig("""
            state_directory: \(directory)/state
            sinks:
              tsdb: { type: timescaledb, url: "\(url)", schema: \(schema)_ts, require_timescaledb: false }
              supa: { type: postgres, url: "\(url)", schema: \(schema)_pg, user_id: 3b241101-e2bb-4255-8caf-4136c566a962 }
            """, in: directory)
        let imported = try CommandRunner.run(["import", CommandRunner.repository + "/samples/export.zip", "--config", config, "-q"],
                                             in: directory)
        #expect(imported.status == 0, "\(imported.stdout)\(imported.stderr)")
        let connection = try PostgresTestDatabase.connect(url)
        defer { connection.close() }
        for (readme, searchPath) in [("Plugins/TimescaleDBSink/README.md", "\(schema)_ts"),
                                     ("Plugins/PostgresSink/README.md", "\(schema)_pg")] {
            let statements = try ReadmeSQL.statements(in: readme, section: "Queries")
            #expect(statements.count >= 5, "\(readme)")
            _ = try connection.execute("SET search_path = \(searchPath)")
            for sql in statements {
                do {
                    #expect(try connection.query(sql).rowCount > 0, "no rows: \(sql)")
                } catch {
                    Issue.record("\(readme): \(error): \(sql)")
                }
            }
        }
        _ = try connection.execute("DROP SCHEMA \(schema)_ts CASCADE; DROP SCHEMA \(schema)_pg CASCADE")
    }
}
