import Foundation
import Testing
import HealthRouterCore
import PostgresClient
@testable import TimescaleDBSink
import TestSupport

/// The TimescaleDB DDL the sink sends for compression and the daily aggregate, and the settings
/// of its write transactions, seen on the wire: a proxy (`PostgresStatementProxy`) before a
/// server of the test's own that preloads the TimescaleDB stand-in keeps every statement and
/// passes the table options plain PostgreSQL refuses to the stand-in, which records them as
/// TimescaleDB would (`timescaledb_information.compression_settings`, its jobs).
@Suite struct TimescaleDBPoliciesTests {
    static let tables = ["samples", "sleep_stages", "workouts"]

    /// A timescaledb sink on `url`, schema `health`, with `options` (YAML lines).
    static func sink(_ url: String, _ options: String) throws -> TimescaleDBSink {
        let config = try HealthRouterConfig.parse(yaml: """
            sinks:
              tsdb:
                type: timescaledb
                url: "\(url)"
                schema: health
                \(options)
            """)
        let configuration = try ConfigDecoder.decode(TimescaleDBSink.Configuration.self,
                                                     from: try #require(config.sink(named: "tsdb")).options, path: "sinks.tsdb")
        return TimescaleDBSink(configuration: configuration, context: ConformanceFixtures.context())
    }

    /// Runs of blanks as one space: the statement as PostgreSQL parses it.
    static func oneLine(_ statement: String) -> String {
        statement.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
    }

    /// Compression and the continuous aggregate as the reference verified them on 2.17.2 and
    /// 2.28.3 (§3, §8): `timescaledb.compress` with the configured segmentby and orderby
    /// `start_at DESC`, `add_compression_policy(…, compress_after => …, if_not_exists => true)` on
    /// each hypertable, and `samples_daily` `WITH (timescaledb.continuous,
    /// timescaledb.materialized_only = false) … WITH NO DATA` (real-time: raw rows show before a
    /// refresh) with an hourly refresh policy from the first row. A second start sends no
    /// compression DDL again (TimescaleDB 2.12 refused even the same settings once chunks were
    /// compressed).
    @Test func compressionAndTheDailyAggregateAreSentAsTheReferenceVerifiedThem() throws {
        guard let (server, admin) = try PostgresServerFixture.withTimescaleDBStandIn(portOffset: 260) else { return }
        defer { admin.close() }
        let proxy = try PostgresStatementProxy(serverPort: server.port)
        let options = "compression: { after: 180d, segment_by: [type, user_id] }\n    daily_aggregates: true"
        func start() throws -> (ddl: [String], calls: [String]) {
            let before = proxy.statements.count
            let sink = try Self.sink(proxy.url(for: server.url), options)
            defer { sink.close() }
            _ = try sink.prepare()
            #expect(sink.usesHypertables)
            try sink.write(ConformanceFixtures.entries([ConformanceFixtures.heartRate]), cursor: 1)
            let calls = try admin.execute("SELECT call FROM _timescaledb_internal.stand_in_calls "
                                              + "WHERE call NOT LIKE 'create_hypertable%' ORDER BY seq")
            try admin.execute("TRUNCATE _timescaledb_internal.stand_in_calls")
            let ddl = proxy.statements.dropFirst(before).filter {
                $0.hasPrefix("ALTER TABLE") && $0.contains("timescaledb.") || $0.hasPrefix("CREATE MATERIALIZED VIEW")
            }
            return (ddl.map(Self.oneLine), (0..<calls.rowCount).compactMap { calls.text($0, 0) })
        }
        let aggregate = "CREATE MATERIALIZED VIEW IF NOT EXISTS \"health\".\"samples_daily\" "
            + "WITH (timescaledb.continuous, timescaledb.materialized_only = false) AS "
            + "SELECT user_id, type, unit, time_bucket(INTERVAL '1 day', start_at) AS day, count(*) AS sample_count, "
            + "sum(value) AS sum_value, avg(value) AS avg_value, min(value) AS min_value, max(value) AS max_value "
            + "FROM \"health\".\"samples\" GROUP BY user_id, type, unit, day WITH NO DATA"
        let refresh = "add_continuous_aggregate_policy(health.samples_daily, start_offset => NULL, end_offset => 01:00:00, "
            + "schedule_interval => 01:00:00, if_not_exists => t)"
        let first = try start()
        #expect(first.ddl == Self.tables.map {
            "ALTER TABLE \"health\".\"\($0)\" SET (timescaledb.compress, timescaledb.compress_segmentby = 'type, user_id', "
                + "timescaledb.compress_orderby = 'start_at DESC')"
        } + [aggregate])
        // 180 days = 4,320 h, as the server prints the interval the call bound to.
        #expect(first.calls == Self.tables.map {
            "add_compression_policy(health.\($0), compress_after => 4320:00:00, if_not_exists => t)"
        } + [refresh])
        // What TimescaleDB lists afterwards (the stand-in parsed the options the sink sent).
        let settings = try admin.execute("""
            SELECT hypertable_name, string_agg(attname || coalesce('@s' || segmentby_column_index, '')
                || coalesce('@o' || orderby_column_index || CASE WHEN orderby_asc THEN ' ASC' ELSE ' DESC' END, ''), ',' ORDER BY attname)
            FROM timescaledb_information.compression_settings WHERE hypertable_schema = 'health' GROUP BY 1 ORDER BY 1
            """)
        #expect((0..<settings.rowCount).map { "\(settings.text($0, 0) ?? ""): \(settings.text($0, 1) ?? "")" }
                == Self.tables.map { "\($0): start_at@o1 DESC,type@s1,user_id@s2" })
        // The aggregate's query runs against the sink's table (plain here: refreshed by hand).
        try admin.execute("REFRESH MATERIALIZED VIEW health.samples_daily")
        let daily = try admin.execute("SELECT type, unit, sample_count, avg_value FROM health.samples_daily")
        #expect(daily.rowCount == 1 && daily.text(0, 0) == ConformanceFixtures.heartRate.type && daily.text(0, 1) == "count/min")
        #expect(daily.int(0, 2) == 1 && daily.text(0, 3) == "72")
        // Started again: compression is on and the policies are there.
        let second = try start()
        #expect(second.ddl == [aggregate])
        #expect(second.calls == [refresh])
        let jobs = try admin.execute("SELECT proc_name, count(*) FROM timescaledb_information.jobs GROUP BY 1 ORDER BY 1")
        #expect((0..<jobs.rowCount).map { "\(jobs.text($0, 0) ?? "") \(jobs.int($0, 1) ?? 0)" }
                == ["policy_compression 3", "policy_refresh_continuous_aggregate 1"])
    }

    /// A `segment_by` changed after compression was turned on is not applied (the sink sets the
    /// settings once), and is no longer ignored without a word: the start warns, naming each
    /// table, what it has, what the config asks and the `ALTER TABLE` that changes it, with the
    /// decompression 2.13 needs first and 2.14+ does not (new settings apply to chunks compressed
    /// from then on).
    @Test func aChangedSegmentByIsToldWithTheStatementsThatApplyIt() throws {
        guard let (server, admin) = try PostgresServerFixture.withTimescaleDBStandIn(portOffset: 280) else { return }
        defer { admin.close() }
        let proxy = try PostgresStatementProxy(serverPort: server.port)
        let first = try Self.sink(proxy.url(for: server.url), "compression: { after: 180d }")
        _ = try first.prepare()
        first.close()
        let schema = TimescaleDBSchema(schema: "health")
        let connection = try PostgresConnection(url: server.url)
        defer { connection.close() }
        func kept(_ segmentBy: [String]?, _ version: String = "2.17.2") throws -> String? {
            try TimescaleDBPolicies.keptCompressionSettings(on: connection, schema: schema, segmentBy: segmentBy,
                                                            catalogVersion: version)
        }
        // As set: nothing to say (the default is type).
        #expect(try kept(nil) == nil)
        #expect(try kept(["type"]) == nil)
        // The real binary started with segment_by edited: the table keeps its settings (no ALTER
        // TABLE went out), and the log says so once, with what to run.
        let sent = proxy.statements.count
        let directory = makeTemporaryDirectory()
        let config = try writeConfig("""
            state_directory: \(directory)/state
            sinks:
              tsdb:
                type: timescaledb
                url: "\(proxy.url(for: server.url))"
                schema: health
                compression: { after: 180d, segment_by: [user_id, type] }
            """, in: directory)
        let checked = try CommandRunner.run(["check", "--connect", "--config", config], in: directory)
        #expect(checked.status == 0, "\(checked.stdout)\(checked.stderr)")
        #expect(!proxy.statements.dropFirst(sent).contains { $0.contains("timescaledb.compress") })
        let warning = try #require(try kept(["user_id", "type"]))
        let logged = checked.stderr.split(separator: "\n").filter { $0.contains("compression settings differ") }
        #expect(logged.count == 1 && logged.first.map { $0.contains(warning) } == true, "\(checked.stderr)")
        #expect(warning.hasPrefix("compression settings differ from the config and are kept"), "\(warning)")
        for table in Self.tables {
            let asked: String = "\"health\".\"\(table)\" segments by 'type' and orders by 'start_at DESC' where the config asks "
                + "segment_by 'user_id, type' and orderby 'start_at DESC': "
            let statement: String = "ALTER TABLE \"health\".\"\(table)\" SET (timescaledb.compress_segmentby = 'user_id, type', "
                + "timescaledb.compress_orderby = 'start_at DESC'); "
            let decompress: String = "(chunks compressed already keep the old settings until decompressed: "
                + "SELECT decompress_chunk(c, if_compressed => true) FROM show_chunks('\"health\".\"\(table)\"') c; "
                + "then the compression policy compresses them anew)."
            #expect(warning.contains(asked + statement + decompress), "\(warning)")
        }
        // 2.13 refuses new settings while a chunk is compressed: decompress first.
        let old = try #require(try kept(["user_id", "type"], "2.13.1"))
        #expect(old.contains("'start_at DESC': SELECT decompress_chunk(c, if_compressed => true) FROM "
                                 + "show_chunks('\"health\".\"samples\"') c; then ALTER TABLE \"health\".\"samples\" SET"), "\(old)")
        #expect(old.hasSuffix("(TimescaleDB 2.13.1 refuses new settings while any chunk is compressed; 2.14 and later "
                                  + "take them at once, for chunks compressed from then on.)"))
        // The statement the warning gives does change them (the stand-in takes it as 2.14+ does).
        let alter = try #require(warning.firstRange(of: "ALTER TABLE \"health\".\"samples\" SET (").map {
            String(warning[$0.lowerBound...].prefix { $0 != ";" })
        })
        try admin.execute("SELECT _timescaledb_internal.stand_in_utility(\(SQL.literal(alter)))")
        #expect(try kept(["user_id", "type"])?.contains("\"health\".\"samples\" ") == false)
        // An orderby changed by hand is told too.
        try admin.execute("SELECT _timescaledb_internal.stand_in_utility("
                              + "$$ALTER TABLE health.workouts SET (timescaledb.compress_orderby = 'start_at')$$)")
        #expect(try kept(nil)?.contains("\"health\".\"workouts\" segments by 'type' and orders by 'start_at' where") == true)
    }

    /// Through a transaction pooler (Supabase's port 6543, pgbouncer's transaction mode) each
    /// transaction may run on a server connection without the client's session settings: the
    /// proxy runs `RESET ALL` before every `BEGIN`, and a trigger on `samples` reads the settings
    /// the write runs with. They are the sink's (no hash or merge joins, its statement timeout,
    /// no limit on decompressed tuples), set in the transaction itself.
    @Test func aBatchRunsWithItsSettingsThroughATransactionPooler() throws {
        guard let (server, admin) = try PostgresServerFixture.withTimescaleDBStandIn(portOffset: 300) else { return }
        defer { admin.close() }
        let pooler = try PostgresStatementProxy(serverPort: server.port, resetsSessionBeforeBegin: true)
        let sink = try Self.sink(pooler.url(for: server.url), "statement_timeout: 7m")
        defer { sink.close() }
        _ = try sink.prepare()
        #expect(sink.usesHypertables)
        try admin.execute("""
            CREATE TABLE public.seen (hashjoin text, mergejoin text, timeout text, decompressed text);
            CREATE FUNCTION public.note_settings() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                INSERT INTO public.seen VALUES (current_setting('enable_hashjoin'), current_setting('enable_mergejoin'),
                    current_setting('statement_timeout'),
                    current_setting('timescaledb.max_tuples_decompressed_per_dml_transaction', true));
                RETURN NULL;
            END $$;
            CREATE TRIGGER note_settings AFTER INSERT ON health.samples FOR EACH STATEMENT EXECUTE FUNCTION public.note_settings();
            """)
        try sink.write(ConformanceFixtures.entries([ConformanceFixtures.heartRate]), cursor: 1)
        let seen = try admin.execute("SELECT hashjoin, mergejoin, timeout, decompressed FROM public.seen")
        #expect(seen.rowCount > 0)
        for row in 0..<seen.rowCount {
            #expect((0..<4).map { seen.text(row, $0) ?? "NULL" } == ["off", "off", "7min", "0"])
        }
        // The pooler did reset the session: the setup's own settings were not in force.
        #expect(pooler.statements.contains("BEGIN"))
        #expect(try admin.execute("SELECT count(*) FROM health.samples").int(0, 0) == 1)
    }
}
