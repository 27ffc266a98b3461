import Foundation
import Testing
import HealthRouterCore
import PostgresClient
import PostgresSink
import TestSupport

@Suite struct PostgresSinkTieringTests {
    /// A sink with `summarize_after: 30d` on a fresh schema, prepared (the caller closes it).
    func tieredSink(_ url: String) throws -> (sink: PostgresSink, schema: String) {
        let schema = PostgresTestDatabase.freshSchema()
        var configuration = PostgresSink.Configuration(url: url, userId: PostgresSinkTests.userId, schema: schema)
        configuration.summarizeAfter = .days(30)
        let sink = PostgresSink(configuration: configuration, context: ConformanceFixtures.context())
        _ = try sink.prepare()
        return (sink, schema)
    }

    /// health4ai's own `healthkit_daily_summaries` (its key without `unit`, which may be NULL) is
    /// refused with the statements that bring it up to date when tiering folds into it (every fold
    /// failed, retried as an outage, after the metrics table alone was brought up to date); after
    /// them, days fold. Without tiering it is left as it is.
    @Test func health4aisSummariesTableIsBroughtUpToDateForTiering() throws {
        guard let url = PostgresTestDatabase.url else { return }
        let schema = PostgresTestDatabase.freshSchema()
        let admin = try PostgresTestDatabase.connect(url)
        defer { admin.close() }
        let summaries = SQL.qualified(schema, "healthkit_daily_summaries")
        try admin.execute("""
            CREATE SCHEMA \(SQL.identifier(schema));
            CREATE TABLE \(summaries) (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), user_id text NOT NULL,
              metric_type text NOT NULL, summary_date date NOT NULL, avg_value float8, min_value float8, max_value float8,
              sum_value float8, sample_count int, unit text, created_at timestamptz DEFAULT now(),
              UNIQUE (user_id, metric_type, summary_date))
            """)
        let plain = PostgresSink(configuration: .init(url: url, userId: PostgresSinkTests.userId, schema: schema),
                                 context: ConformanceFixtures.context())
        #expect(try plain.prepare() == 0)
        plain.close()
        var configuration = PostgresSink.Configuration(url: url, userId: PostgresSinkTests.userId, schema: schema)
        configuration.summarizeAfter = .days(30)
        let tiered = PostgresSink(configuration: configuration, context: ConformanceFixtures.context())
        let reason = try #require(PostgresSinkTests.misconfiguration(tiered))
        #expect(reason.contains("healthkit_daily_summaries lacks the unique key (user_id, metric_type, summary_date, unit)")
            && !reason.contains("healthkit_metrics lacks"), "\(reason)")
        try admin.execute(try #require(PostgresSinkTests.fixStatements(reason)))
        let fixed = PostgresSink(configuration: configuration, context: ConformanceFixtures.context())
        defer { fixed.close() }
        _ = try fixed.prepare()
        try fixed.write(ConformanceFixtures.entries(ConformanceFixtures.all), cursor: 7)
        #expect(try admin.query("SELECT count(*) FROM \(summaries)").int(0, 0) ?? 0 > 0)
    }

    /// `time_zone` must name a zone the server knows: not an abbreviation (a fixed offset all year)
    /// nor a POSIX-style offset (which PostgreSQL applies with the opposite sign), though `AT TIME
    /// ZONE` takes both; refused before any table is created. Names are matched as the server does, ignoring case.
    @Test func aTimeZoneThatIsNoZoneNameIsRefusedAtConnect() throws {
        guard let url = PostgresTestDatabase.url else { return }
        let connection = try PostgresTestDatabase.connect(url)
        defer { connection.close() }
        for zone in ["CEST", "+02:00", "UTC+2", "Mars/Olympus", "europe/lisbon"] {
            let schema = PostgresTestDatabase.freshSchema()
            var configuration = PostgresSink.Configuration(url: url, userId: PostgresSinkTests.userId, schema: schema)
            configuration.summarizeAfter = .days(30)
            configuration.timeZone = zone
            let sink = PostgresSink(configuration: configuration, context: ConformanceFixtures.context())
            defer { sink.close() }
            let created = { try connection.query("SELECT to_regclass($1) IS NOT NULL", [SQL.qualified(schema, "healthkit_metrics")]).bool(0, 0) }
            if zone == "europe/lisbon" {
                _ = try sink.prepare()
                #expect(try created() == true)
                continue
            }
            do {
                _ = try sink.prepare()
                Issue.record("time_zone \(zone) was accepted")
            } catch let error as SinkError {
                #expect(error.isMisconfigured, "\(zone): \(error)")
                #expect("\(error)".contains("time_zone '\(zone)' is not the name of a zone"), "\(error)")
            }
            #expect(try created() == false, "\(zone)")
        }
    }

    /// The daily view's raw part groups by day in `time_zone`, as the summaries do, and by unit
    /// (32 g and 0.032 kg are two rows, not 32.032 of either); NULL values are not counted. Every
    /// prepare replaces the view, so a database whose view has other days gets these.
    @Test func theDailyViewUsesTheZonesDaysAndKeepsUnitsApart() throws {
        guard let url = PostgresTestDatabase.url else { return }
        let schema = PostgresTestDatabase.freshSchema()
        var configuration = PostgresSink.Configuration(url: url, userId: PostgresSinkTests.userId, schema: schema)
        let utc = PostgresSink(configuration: configuration, context: ConformanceFixtures.context())
        _ = try utc.prepare()
        utc.close()
        configuration.timeZone = "Europe/Berlin"
        let sink = PostgresSink(configuration: configuration, context: ConformanceFixtures.context())
        defer { sink.close() }
        _ = try sink.prepare()
        func protein(_ n: Int, _ value: Double?, _ unit: String) -> Sample {
            var sample = ConformanceFixtures.numbered(n)
            sample.type = "HKQuantityTypeIdentifierDietaryProtein"
            sample.value = value
            sample.unit = unit
            return sample
        }
        // 2024-01-05 23:30 UTC is 00:30 on the 6th in Berlin.
        var lateEvening = ConformanceFixtures.numbered(1)
        lateEvening.start = ConformanceFixtures.at(12_177)
        lateEvening.end = lateEvening.start
        try sink.write(ConformanceFixtures.entries([protein(2, 32, "g"), protein(3, 0.032, "kg"), protein(4, nil, "g"),
                                                    lateEvening]), cursor: 4)
        let connection = try PostgresTestDatabase.connect(url)
        defer { connection.close() }
        let rows = try connection.execute(
            "SELECT metric_type, summary_date::text, unit, sum_value::text, sample_count FROM "
                + "\(SQL.qualified(schema, "v_healthkit_daily_quantity")) ORDER BY 1, 2, 3")
        let view = (0..<rows.rowCount).map { row in (0..<5).map { rows.text(row, $0) ?? "NULL" }.joined(separator: " ") }
        #expect(view == ["HKQuantityTypeIdentifierDietaryProtein 2024-01-05 g 32 1",
                         "HKQuantityTypeIdentifierDietaryProtein 2024-01-05 kg 0.032 1",
                         "HKQuantityTypeIdentifierHeartRate 2024-01-06 count/min 61 1"])
    }

    /// A tombstone for a sample whose day was folded takes its value out of the summary: sum,
    /// count and average follow; an extreme it was is recomputed from the values kept for the day,
    /// or, when those are not all of them (an id folded before values were kept), unknown (NULL),
    /// and stays unknown when late rows are merged. A tombstone delivered again changes nothing.
    @Test func aTombstoneTakesAFoldedSampleOutOfItsSummary() throws {
        guard let url = PostgresTestDatabase.url else { return }
        let schema = PostgresTestDatabase.freshSchema()
        var configuration = PostgresSink.Configuration(url: url, userId: PostgresSinkTests.userId, schema: schema)
        configuration.summarizeAfter = .days(30)
        let connection = try PostgresTestDatabase.connect(url)
        defer { connection.close() }
        // The table as versions before kept values made it: prepare adds the columns.
        try connection.execute("CREATE SCHEMA \(SQL.identifier(schema)); "
                                   + "CREATE TABLE \(SQL.qualified(schema, "healthkit_summarized_ids")) (id uuid PRIMARY KEY)")
        let sink = PostgresSink(configuration: configuration, context: ConformanceFixtures.context())
        defer { sink.close() }
        _ = try sink.prepare()
        let beats = (0..<4).map(ConformanceFixtures.numbered)  // 60, 61, 62, 63 on one day
        try sink.write(ConformanceFixtures.entries(beats), cursor: 4)
        func summary() throws -> [String?] {
            let result = try connection.execute("SELECT sample_count, sum_value, avg_value, min_value, max_value FROM "
                                                    + SQL.qualified(schema, "healthkit_daily_summaries"))
            #expect(result.rowCount == 1)
            return (0..<5).map { result.text(0, $0) }
        }
        var sequence: Int64 = 4
        func delete(_ sample: Sample) throws {
            sequence += 1
            try sink.write([ConformanceFixtures.tombstone([sample.id], sequence: sequence)], cursor: sequence)
        }
        #expect(try summary() == ["4", "246", "61.5", "60", "63"])
        try delete(beats[1])
        #expect(try summary() == ["3", "185", "61.666666666666664", "60", "63"])
        try delete(beats[3])  // the maximum: the kept values give the next one
        #expect(try summary() == ["2", "122", "61", "60", "62"])
        try delete(beats[3])
        #expect(try summary() == ["2", "122", "61", "60", "62"])
        // An id folded before values were kept cannot be subtracted (a warning names it).
        try connection.query("UPDATE \(SQL.qualified(schema, "healthkit_summarized_ids")) SET user_id = NULL, metric_type = NULL, "
                                 + "summary_date = NULL, unit = NULL, value = NULL WHERE id = $1::uuid", [beats[0].id])
        try delete(beats[0])
        #expect(try summary() == ["2", "122", "61", "60", "62"])
        try delete(beats[2])  // the maximum, and the kept values are not all of the day's: unknown
        #expect(try summary() == ["1", "60", "60", "60", nil])
        var late = ConformanceFixtures.numbered(5)
        late.value = 70
        sequence += 1
        try sink.write(ConformanceFixtures.entries([late], from: sequence), cursor: sequence)
        #expect(try summary() == ["2", "130", "65", "60", nil])
    }

    /// Two samples under one key (health4ai's: user, type, device, start) that arrive in different
    /// batches share one raw row in turn; once the key was folded, the second is not counted again.
    @Test func aSecondIdUnderAFoldedKeyIsNotCountedAgain() throws {
        guard let url = PostgresTestDatabase.url else { return }
        let (sink, schema) = try tieredSink(url)
        defer { sink.close() }
        let first = ConformanceFixtures.numbered(1)
        var second = first
        second.id = "00000000-0000-4000-8000-0000000000b2"
        second.value = 70
        try sink.write(ConformanceFixtures.entries([first, ConformanceFixtures.numbered(2)]), cursor: 2)
        try sink.write(ConformanceFixtures.entries([second], from: 3), cursor: 3)
        let connection = try PostgresTestDatabase.connect(url)
        defer { connection.close() }
        let result = try connection.execute("SELECT sample_count, sum_value FROM " + SQL.qualified(schema, "healthkit_daily_summaries"))
        #expect(result.rowCount == 1)
        #expect((0..<2).map { result.text(0, $0) } == ["2", "123"])
        #expect(try connection.execute("SELECT count(*) FROM \(SQL.qualified(schema, "healthkit_metrics"))").int(0, 0) == 0)
    }

    /// A NULL value is not a sample of the day's statistics: `sample_count` counts values, so
    /// that sum / count stays the average when late rows are merged.
    @Test func foldingCountsValuesNotRows() throws {
        guard let url = PostgresTestDatabase.url else { return }
        let (sink, schema) = try tieredSink(url)
        defer { sink.close() }
        var empty = ConformanceFixtures.numbered(3)
        empty.value = nil
        try sink.write(ConformanceFixtures.entries([ConformanceFixtures.numbered(1), ConformanceFixtures.numbered(2), empty]),
                       cursor: 3)
        try sink.write(ConformanceFixtures.entries([ConformanceFixtures.numbered(4)], from: 4), cursor: 4)
        let connection = try PostgresTestDatabase.connect(url)
        defer { connection.close() }
        let result = try connection.execute("SELECT sample_count, sum_value, avg_value FROM "
                                                + SQL.qualified(schema, "healthkit_daily_summaries"))
        #expect(result.rowCount == 1)
        #expect((0..<3).map { result.text(0, $0) } == ["3", "187", "62.333333333333336"])
    }

    /// `summarize_after` turned on for a store whose old rows take longer to fold than
    /// `statement_timeout` (here a trigger makes the fold wait 2.5 s against 1 s): the first fold,
    /// at start, runs without the timeout and completes; it failed at every start, stopping the sink.
    @Test func aFirstFoldLongerThanTheStatementTimeoutCompletes() throws {
        guard let url = PostgresTestDatabase.url else { return }
        let schema = PostgresTestDatabase.freshSchema()
        var configuration = PostgresSink.Configuration(url: url, userId: PostgresSinkTests.userId, schema: schema)
        configuration.statementTimeout = .seconds(1)
        let plain = PostgresSink(configuration: configuration, context: ConformanceFixtures.context())
        _ = try plain.prepare()
        try plain.write(ConformanceFixtures.entries((0..<20).map(ConformanceFixtures.numbered)), cursor: 20)
        plain.close()
        let connection = try PostgresTestDatabase.connect(url)
        defer { connection.close() }
        let metrics = SQL.qualified(schema, "healthkit_metrics")
        let summaries = SQL.qualified(schema, "healthkit_daily_summaries")
        // The setting the fold ran with, and a fold slower than the timeout.
        try connection.execute("""
            CREATE TABLE \(SQL.qualified(schema, "fold_settings")) (statement_timeout text);
            CREATE FUNCTION \(SQL.qualified(schema, "slow_fold"))() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
              INSERT INTO \(SQL.qualified(schema, "fold_settings")) VALUES (current_setting('statement_timeout'));
              PERFORM pg_sleep(2.5);
              RETURN NULL;
            END $$;
            CREATE TRIGGER slow_fold BEFORE INSERT ON \(summaries)
              FOR EACH STATEMENT EXECUTE FUNCTION \(SQL.qualified(schema, "slow_fold"))()
            """)
        configuration.summarizeAfter = .days(30)
        let tiered = PostgresSink(configuration: configuration, context: ConformanceFixtures.context())
        #expect(try tiered.prepare() == 20)
        tiered.close()
        #expect(try connection.execute("SELECT count(*) FROM \(metrics)").int(0, 0) == 0)
        #expect(try connection.execute("SELECT sum(sample_count) FROM \(summaries)").int(0, 0) == 20)
        #expect(try connection.execute("SELECT statement_timeout FROM \(SQL.qualified(schema, "fold_settings"))").text(0, 0) == "0")
    }

    @Test func oldRawRowsFoldIntoDailySummariesAndLateRowsResummarize() throws {
        guard let url = PostgresTestDatabase.url else { return }
        let schema = PostgresTestDatabase.freshSchema()
        var configuration = PostgresSink.Configuration(url: url, userId: PostgresSinkTests.userId, schema: schema)
        configuration.summarizeAfter = .days(30)
        configuration.timeZone = "Europe/Lisbon"
        let sink = PostgresSink(configuration: configuration, context: ConformanceFixtures.context())
        _ = try sink.prepare()
        let beats = (0..<4).map { n -> Sample in
            var sample = ConformanceFixtures.numbered(n)
            sample.value = Double(60 + n)
            return sample
        }
        let raw = [ConformanceFixtures.sleep, ConformanceFixtures.bloodPressure, ConformanceFixtures.activitySummary]
        try sink.write(ConformanceFixtures.entries(beats + raw), cursor: 7)
        sink.close()
        let connection = try PostgresTestDatabase.connect(url)
        defer { connection.close() }
        let metrics = SQL.qualified(schema, "healthkit_metrics")
        let summaries = SQL.qualified(schema, "healthkit_daily_summaries")
        // The sleep row and the `record` rows (a correlation, an activity summary) stay raw.
        #expect(try connection.execute("SELECT count(*) FROM \(metrics)").int(0, 0) == 3)
        #expect(try connection.execute("SELECT count(*) FROM \(summaries)").int(0, 0) == 1)
        func summary() throws -> [String?] {
            let result = try connection.execute("SELECT summary_date::text, sample_count, sum_value, min_value, max_value, avg_value, unit "
                                                    + "FROM \(summaries) WHERE metric_type = 'HKQuantityTypeIdentifierHeartRate'")
            #expect(result.rowCount == 1)
            return (0..<7).map { result.text(0, $0) }
        }
        #expect(try summary() == ["2024-01-05", "4", "246", "60", "63", "61.5", "count/min"])
        // A late reading for the same day, after the day was summarized.
        let late = PostgresSink(configuration: configuration, context: ConformanceFixtures.context())
        _ = try late.prepare()
        var reading = ConformanceFixtures.numbered(9)
        reading.value = 90
        try late.write(ConformanceFixtures.entries([reading], from: 8), cursor: 8)
        late.close()
        let again = PostgresSink(configuration: configuration, context: ConformanceFixtures.context())
        _ = try again.prepare()
        again.close()
        #expect(try summary() == ["2024-01-05", "5", "336", "60", "90", "67.2", "count/min"])

        // Delivered again after their day was folded (a backfill, a migration): not counted twice.
        let backfill = PostgresSink(configuration: configuration, context: ConformanceFixtures.context())
        _ = try backfill.prepare()
        try backfill.write(ConformanceFixtures.entries(beats + [reading] + raw, from: 20), cursor: 30)
        backfill.close()
        #expect(try summary() == ["2024-01-05", "5", "336", "60", "90", "67.2", "count/min"])
        #expect(try connection.execute("SELECT count(*) FROM \(metrics)").int(0, 0) == 3)
        #expect(try connection.execute("SELECT count(*) FROM \(SQL.qualified(schema, "healthkit_summarized_ids"))").int(0, 0) == 5)
    }
}
