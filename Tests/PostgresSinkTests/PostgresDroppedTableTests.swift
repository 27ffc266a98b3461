import Foundation
import TestSupport
import Testing
import HealthRouterCore
import PostgresClient
import PostgresSink
import TimescaleDBSink

/// A data table dropped under a store that holds cursors: the sink takes the store
/// as new (its cursor 0, `createdItsStore`), so the worker delivers the journal again, instead of
/// creating the table anew, empty, and carrying on from its cursor ("0 rows written, caught up").
@Suite struct PostgresDroppedTableTests {
    static let samples = (0..<30).map(ConformanceFixtures.numbered) + ConformanceFixtures.all

    /// A journal holding `samples`, in a directory the caller removes.
    func journalDirectory() throws -> String {
        let directory = ConformanceFixtures.temporaryDirectory()
        _ = try Journal(stateDirectory: directory).append(Self.samples.map { .sample($0) }, source: "history")
        return directory
    }

    func deliver(_ make: @escaping () -> any Sink, directory: String) -> SinkWorker.Progress {
        SinkConformance(make: make, snapshot: { [] }, storedIds: nil, refused: nil).runWorker(directory: directory)
    }

    @Test func aDroppedMetricsTableIsFilledAgainFromTheJournal() throws {
        guard let url = PostgresTestDatabase.url else { return }
        let directory = try journalDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let schema = PostgresTestDatabase.freshSchema()
        let configuration = PostgresSink.Configuration(url: url, userId: PostgresSinkTests.userId, schema: schema)
        let make = { PostgresSink(configuration: configuration, context: ConformanceFixtures.context()) as any Sink }
        #expect(deliver(make, directory: directory).written == Self.samples.count)
        func snapshot() throws -> [String] {
            try PostgresTestDatabase.snapshot(url, schema: schema, tables: ["healthkit_metrics"],
                                              dropping: ["synced_at", "journal_seq"])
        }
        let written = try snapshot()
        #expect(written.count > 30)
        let admin = try PostgresTestDatabase.connect(url)
        defer { admin.close() }
        try admin.execute("DROP TABLE \(SQL.qualified(schema, "healthkit_metrics")) CASCADE")

        let again = deliver(make, directory: directory)
        #expect(again.written == Self.samples.count)
        #expect(again.cursor == Int64(Self.samples.count))
        #expect(try snapshot() == written)

        // A prepare says it made the store (a resumed migrate or backfill starts over), once.
        try admin.execute("DROP TABLE \(SQL.qualified(schema, "healthkit_metrics")) CASCADE")
        let sink = PostgresSink(configuration: configuration, context: ConformanceFixtures.context())
        #expect(try sink.prepare() == 0)
        #expect(sink.createdItsStore)
        sink.close()
        let after = PostgresSink(configuration: configuration, context: ConformanceFixtures.context())
        #expect(try after.prepare() == 0)
        #expect(!after.createdItsStore)
        after.close()
    }

    /// With tiering, the summaries dropped: the ids they had folded are forgotten with the cursor,
    /// so the rows delivered again are folded again into the same summaries.
    @Test func droppedSummariesAreFoldedAgainFromTheJournal() throws {
        guard let url = PostgresTestDatabase.url else { return }
        let directory = try journalDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let schema = PostgresTestDatabase.freshSchema()
        var configuration = PostgresSink.Configuration(url: url, userId: PostgresSinkTests.userId, schema: schema)
        configuration.summarizeAfter = .days(30)
        let make = { PostgresSink(configuration: configuration, context: ConformanceFixtures.context()) as any Sink }
        #expect(deliver(make, directory: directory).written == Self.samples.count)
        func snapshot() throws -> [String] {
            try PostgresTestDatabase.snapshot(url, schema: schema, tables: ["healthkit_metrics", "healthkit_daily_summaries"],
                                              dropping: ["synced_at", "journal_seq", "id", "created_at"])
        }
        let written = try snapshot()
        #expect(written.contains { $0.hasPrefix("healthkit_daily_summaries:") })
        let admin = try PostgresTestDatabase.connect(url)
        defer { admin.close() }
        try admin.execute("DROP TABLE \(SQL.qualified(schema, "healthkit_daily_summaries")) CASCADE")

        #expect(deliver(make, directory: directory).written == Self.samples.count)
        #expect(try snapshot() == written)
    }

    @Test func aDroppedTimescaleDBTableIsFilledAgainAndItsIndexRowsGo() throws {
        guard let url = PostgresTestDatabase.url else { return }
        let directory = try journalDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let schema = PostgresTestDatabase.freshSchema()
        let configuration = TimescaleDBSink.Configuration(url: url, schema: schema, requireTimescaledb: false)
        let make = { TimescaleDBSink(configuration: configuration, context: ConformanceFixtures.context()) as any Sink }
        #expect(deliver(make, directory: directory).written == Self.samples.count)
        let tables = ["samples", "sleep_stages", "workouts", "sample_index", "workout_events", "workout_route_points"]
        func snapshot() throws -> [String] {
            try PostgresTestDatabase.snapshot(url, schema: schema, tables: tables, dropping: ["written_at", "journal_seq"])
        }
        let written = try snapshot()
        #expect(written.count == Self.samples.count * 2 + 2)
        let admin = try PostgresTestDatabase.connect(url)
        defer { admin.close() }
        for dropped in ["samples", "workouts"] {
            try admin.execute("DROP TABLE \(SQL.qualified(schema, dropped)) CASCADE")
            let sink = TimescaleDBSink(configuration: configuration, context: ConformanceFixtures.context())
            #expect(try sink.prepare() == 0)
            #expect(sink.createdItsStore)
            sink.close()
            // No index row points at the rows that went with the table, nor is a part of a dropped workout left.
            let orphans = try admin.query("SELECT count(*) FROM \(SQL.qualified(schema, "sample_index")) WHERE table_name = $1",
                                          [dropped]).int(0, 0)
            #expect(orphans == 0)
            if dropped == "workouts" {
                #expect(try admin.execute("SELECT count(*) FROM \(SQL.qualified(schema, "workout_events"))").int(0, 0) == 0)
            }
            let again = deliver(make, directory: directory)
            #expect(again.written == Self.samples.count)
            #expect(try snapshot() == written)
        }
    }

    /// A data table renamed (`ALTER TABLE samples RENAME TO samples_old`) keeps its indexes' names,
    /// so the sink could not create it anew (the postgres sink's named key failed with "already
    /// exists" at every retry; the timescaledb sink made `samples` without its type index). The
    /// sink refuses to start, `misconfigured`, naming itself, the table and the fixes, and changes
    /// nothing; renamed back, it carries on from its cursor; moved to another schema, the table is
    /// made anew with its indexes and the store taken as new.
    @Test func aRenamedTableIsMisconfiguredWithTheFixNotRetriedOrMadeAnewWithoutItsIndexes() throws {
        guard let url = PostgresTestDatabase.url else { return }
        let admin = try PostgresTestDatabase.connect(url)
        defer { admin.close() }
        let schema = PostgresTestDatabase.freshSchema()
        let archive = PostgresTestDatabase.freshSchema()
        try admin.execute("CREATE SCHEMA \(archive)")
        defer { _ = try? admin.execute("DROP SCHEMA \(archive) CASCADE") }
        let postgres = PostgresSink.Configuration(url: url, userId: PostgresSinkTests.userId, schema: schema)
        let timescale = TimescaleDBSink.Configuration(url: url, schema: schema + "_ts", requireTimescaledb: false)
        func context() -> PluginContext {
            PluginContext(name: "store", stateDirectory: TestScratch.path, logger: Logger(minimumLevel: .error))
        }
        let cases: [(make: () -> any Sink, schema: String, table: String, index: String, sink: String)] = [
            ({ PostgresSink(configuration: postgres, context: context()) }, schema, "healthkit_metrics",
             "idx_healthkit_metrics_user_type_started", "postgres sink 'store'"),
            ({ TimescaleDBSink(configuration: timescale, context: context()) }, schema + "_ts", "samples", "samples_type_start",
             "timescaledb sink 'store'"),
        ]
        for (make, schema, table, index, name) in cases {
            let sink = make()
            _ = try sink.prepare()
            try sink.write(ConformanceFixtures.entries([ConformanceFixtures.numbered(1)]), cursor: 1)
            sink.close()
            try admin.execute("ALTER TABLE \(SQL.qualified(schema, table)) RENAME TO \(table)_old")
            let renamed = make()
            #expect {
                _ = try renamed.prepare()
            } throws: { error in
                guard case SinkError.misconfigured(let reason) = error else { return false }
                return reason.hasPrefix("\(name): table \(SQL.qualified(schema, table)) is missing and "
                                            + "\(SQL.qualified(schema, table + "_old")) holds its indexes")
                    && reason.contains("it was renamed")
                    && reason.contains("ALTER TABLE \(SQL.qualified(schema, table + "_old")) RENAME TO \"\(table)\"")
                    && reason.contains("SET SCHEMA") && reason.contains("set `schema` to a new one")
                    && reason.contains("DROP TABLE \(SQL.qualified(schema, table + "_old")) CASCADE")
            }
            renamed.close()
            // Nothing changed: renamed back, the sink carries on from its cursor with its rows.
            #expect(try admin.query("SELECT to_regclass($1) IS NULL", [SQL.qualified(schema, table)]).bool(0, 0) == true)
            try admin.execute("ALTER TABLE \(SQL.qualified(schema, table + "_old")) RENAME TO \(table)")
            let back = make()
            #expect(try back.prepare() == 1)
            #expect(!back.createdItsStore)
            back.close()
            // Moved out of the schema with its indexes: the table is made anew, indexed, and the store is new.
            try admin.execute("ALTER TABLE \(SQL.qualified(schema, table)) RENAME TO \(table)_old; "
                                  + "ALTER TABLE \(SQL.qualified(schema, table + "_old")) SET SCHEMA \(archive)")
            let anew = make()
            #expect(try anew.prepare() == 0)
            #expect(anew.createdItsStore)
            anew.close()
            #expect(try admin.query("SELECT indrelid::regclass::text FROM pg_index WHERE indexrelid = to_regclass($1)",
                                    [SQL.qualified(schema, index)]).text(0, 0) == "\(schema).\(table)")
            // Renamed again and dropped as the message says (a plain DROP TABLE fails on the postgres
            // sink's daily view, which followed the table): the sink makes the table and its view anew.
            try admin.execute("ALTER TABLE \(SQL.qualified(schema, table)) RENAME TO \(table)_old")
            try admin.execute("DROP TABLE \(SQL.qualified(schema, table + "_old")) CASCADE")
            let dropped = make()
            #expect(try dropped.prepare() == 0)
            dropped.close()
        }
    }

    /// Two sinks on one schema, the table dropped: the first to open again forgets every cursor of
    /// the schema. The other, still connected, must not write its next batch into the table made
    /// anew and put its old cursor back (it would never deliver what the table lost, and say it was
    /// caught up): its write fails as unavailable, and opened again it starts from 0.
    @Test func aSecondSinkOfTheSchemaDoesNotCarryOnPastTheDroppedTable() throws {
        guard let url = PostgresTestDatabase.url else { return }
        let schema = PostgresTestDatabase.freshSchema()
        func context(_ name: String) -> PluginContext {
            PluginContext(name: name, stateDirectory: TestScratch.path, logger: Logger(minimumLevel: .error))
        }
        let admin = try PostgresTestDatabase.connect(url)
        defer { admin.close() }
        let postgres = PostgresSink.Configuration(url: url, userId: PostgresSinkTests.userId, schema: schema)
        let timescale = TimescaleDBSink.Configuration(url: url, schema: schema + "_ts", requireTimescaledb: false)
        let cases: [(make: (String) -> any Sink, table: String)] = [
            ({ PostgresSink(configuration: postgres, context: context($0)) }, SQL.qualified(schema, "healthkit_metrics")),
            ({ TimescaleDBSink(configuration: timescale, context: context($0)) }, SQL.qualified(schema + "_ts", "samples")),
        ]
        for (make, table) in cases {
            let first = make("first"), second = make("second")
            _ = try first.prepare()
            _ = try second.prepare()
            try first.write(ConformanceFixtures.entries([ConformanceFixtures.numbered(1)], from: 1), cursor: 1)
            try second.write(ConformanceFixtures.entries([ConformanceFixtures.numbered(2)], from: 2), cursor: 2)
            try admin.execute("DROP TABLE \(table) CASCADE")
            first.close()
            let reopened = make("first")
            #expect(try reopened.prepare() == 0)
            reopened.close()
            let refused = #expect(throws: SinkError.self) {
                try second.write(ConformanceFixtures.entries([ConformanceFixtures.numbered(3)], from: 3), cursor: 3)
            }
            #expect("\(refused.map { "\($0)" } ?? "")".contains("the schema's cursors were reset"), "\(String(describing: refused))")
            second.close()
            let secondAgain = make("second")
            #expect(try secondAgain.prepare() == 0)
            secondAgain.close()
        }
    }
}
