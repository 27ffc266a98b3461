import Foundation
import Testing
import HealthRouterCore
import PostgresClient
import PostgresSink
import TestSupport

@Suite struct PostgresSinkTests {
    static let userId = "A1B2C3D4-0000-4000-8000-00000000000A"

    func configuration(_ url: String, _ schema: String) -> PostgresSink.Configuration {
        PostgresSink.Configuration(url: url, userId: Self.userId, schema: schema)
    }

    /// A sink on `schema`, prepared (the caller closes it).
    func preparedSink(_ url: String, _ schema: String) throws -> PostgresSink {
        let sink = PostgresSink(configuration: configuration(url, schema), context: ConformanceFixtures.context())
        _ = try sink.prepare()
        return sink
    }

    /// The reason `sink`'s prepare gives for being misconfigured (the sink closed afterwards); nil
    /// when it prepared, or failed otherwise.
    static func misconfiguration(_ sink: PostgresSink) -> String? {
        if case SinkError.misconfigured(let reason)? = SinkFixtures.prepareError(sink) { return reason }
        return nil
    }

    /// The statements a misconfigured reason gives to bring the tables up to date.
    static func fixStatements(_ reason: String) -> String? {
        let parts = reason.components(separatedBy: "bring the tables up to date: ")
        return parts.count == 2 ? parts[1] : nil
    }

    func conformance(_ url: String, schema: String) -> SinkConformance {
        let configuration = configuration(url, schema)
        var refused = ConformanceFixtures.numbered(999)
        refused.device = "nul\u{0}byte"
        return SinkConformance(
            make: { PostgresSink(configuration: configuration, context: ConformanceFixtures.context()) },
            snapshot: {
                try PostgresTestDatabase.snapshot(url, schema: schema, tables: ["healthkit_metrics", "healthrouter_schema"],
                                                  dropping: ["synced_at", "journal_seq", "applied_at"])
            },
            storedIds: {
                let connection = try PostgresTestDatabase.connect(url)
                defer { connection.close() }
                let result = try connection.execute("SELECT metadata ->> 'healthrouter_id' FROM "
                                                        + SQL.qualified(schema, "healthkit_metrics"))
                return Set((0..<result.rowCount).compactMap { result.text($0, 0) })
            },
            refused: refused)
    }

    /// One of `PostgresTestDatabase.bothSinks` (0: timescaledb, 1: postgres) in a fresh schema,
    /// prepared and holding `ConformanceFixtures.all`, with that schema and how many samples it reads back.
    static func filledSink(url: String, index: Int) throws -> (sink: any ReadableSink, schema: String, count: Int) {
        let schema = PostgresTestDatabase.freshSchema()
        let sink = try #require(PostgresTestDatabase.bothSinks(url: url, schema: schema)[index] as? any ReadableSink)
        _ = try sink.prepare()
        do {
            try sink.write(ConformanceFixtures.entries(ConformanceFixtures.all), cursor: 7)
            var count = 0
            try sink.readBack { _ in count += 1 }
            return (sink, schema, count)
        } catch {
            sink.close()
            throw error
        }
    }

    /// A stored time edited by hand to 'infinity', which the read back's query cannot convert
    /// (`cannot convert infinity to bigint`), fails the read back of either sink as
    /// `SinkError.unreadable`, naming the table, a query that finds such rows and what to do:
    /// it was `unavailable`, so that `dump --from` and `migrate` tried the read five times.
    @Test func aStoredTimeOfInfinityIsUnreadableNotUnavailable() throws {
        guard let url = PostgresTestDatabase.url else { return }
        for (index, table, column) in [(0, "samples", "end_at"), (1, "healthkit_metrics", "ended_at")] {
            let (sink, schema, count) = try Self.filledSink(url: url, index: index)
            defer { sink.close() }
            #expect(count >= 2)
            let admin = try PostgresTestDatabase.connect(url)
            defer { admin.close() }
            let qualified = SQL.qualified(schema, table)
            try admin.execute("UPDATE \(qualified) SET \(column) = 'infinity' WHERE id = (SELECT id FROM \(qualified) LIMIT 1)")
            do {
                try sink.readBack { _ in }
                Issue.record("\(table): read back")
            } catch SinkError.unreadable(let reason) {
                #expect(reason.contains("cannot convert infinity to bigint") || reason.contains("out of range"), "\(reason)")
                #expect(reason.contains("a row of \(qualified) holds a value healthrouter cannot read back: was it edited by hand?")
                        && reason.contains("`SELECT id FROM \(qualified) WHERE ") && reason.contains("NOT isfinite(\(column))")
                        && reason.contains("run `healthrouter backfill test`, which writes it again from the journal (while it "
                                           + "still holds the sample: see `journal.retain`"), "\(reason)")
            }
        }
    }

    /// A row whose stored value healthrouter decodes itself is edited by hand (the postgres
    /// sink's `healthrouter:fields`, which must be JSON, or its `healthrouter:canonical`; the
    /// timescaledb sink's `canonical`): the read back of either sink fails as `SinkError.unreadable`,
    /// naming the table, the row's id and what to do (with a `DELETE` that runs: the store reads
    /// back without the row), where it failed with the bare words of the decoder, as a failure
    /// that no message placed.
    @Test func aStoredValueItCannotDecodeIsUnreadableNamingTheRow() throws {
        guard let url = PostgresTestDatabase.url else { return }
        let cases: [(index: Int, table: String, edit: String, problem: String)] = [
            (1, "healthkit_metrics", "metadata = jsonb_set(metadata, '{healthrouter:fields}', '\"{oops\"')",
             "its metadata key healthrouter:fields is no JSON ("),
            (1, "healthkit_metrics", "metadata = jsonb_set(metadata, '{healthrouter:canonical}', '\"AAAA\"')",
             "its metadata key healthrouter:canonical is no sample healthrouter encoded"),
            (0, "workouts", "canonical = '\\x0501ff'", "its canonical column is no sample healthrouter encoded")]
        for (index, table, edit, problem) in cases {
            let (sink, schema, before) = try Self.filledSink(url: url, index: index)
            defer { sink.close() }
            let admin = try PostgresTestDatabase.connect(url)
            defer { admin.close() }
            let qualified = SQL.qualified(schema, table)
            // A row that holds the value edited: a workout's (its detail needs the canonical sample).
            let key = edit.contains("fields") ? "healthrouter:fields" : "healthrouter:canonical"
            let which = table == "workouts" ? "canonical IS NOT NULL" : "metadata ? '\(key)'"
            let id = try #require(try admin.execute("SELECT id::text FROM \(qualified) WHERE \(which) LIMIT 1").text(0, 0),
                                  "\(table): no row holds \(key)")
            try admin.execute("UPDATE \(qualified) SET \(edit) WHERE id = '\(id)'")
            do {
                try sink.readBack { _ in }
                Issue.record("\(table) \(edit): read back")
            } catch SinkError.unreadable(let reason) {
                #expect(reason.hasPrefix("the row of \(qualified) with id '\(id)' holds what healthrouter cannot read back: "
                                         + problem), "\(reason)")
                #expect(reason.contains("was it edited by hand?") && reason.contains("`DELETE FROM \(qualified) WHERE id = '\(id)'`")
                        && reason.contains("run `healthrouter backfill test`, which writes it again from the journal (while it "
                                           + "still holds the sample: see `journal.retain`"), "\(reason)")
                try admin.execute("DELETE FROM \(qualified) WHERE id = '\(id)'")
                var after = 0
                try sink.readBack { _ in after += 1 }
                #expect(after == before - 1, "\(table) \(edit)")
            }
        }
    }

    @Test func sameBatchTwiceLeavesIdenticalTables() throws {
        guard let url = PostgresTestDatabase.url else { return }
        try conformance(url, schema: PostgresTestDatabase.freshSchema()).sameBatchTwiceLeavesIdenticalContent()
    }

    @Test func tombstonesDelete() throws {
        guard let url = PostgresTestDatabase.url else { return }
        try conformance(url, schema: PostgresTestDatabase.freshSchema()).tombstonesDelete()
    }

    @Test func aRowPostgresRejectsBecomesADeadLetter() throws {
        guard let url = PostgresTestDatabase.url else { return }
        try conformance(url, schema: PostgresTestDatabase.freshSchema()).refusedRowBecomesDeadLetter()
    }

    /// A `healthkit_metrics` health4ai's own schema.sql made (no journal_seq, keyed without the
    /// source) is refused at prepare, with the statements that bring it up to date, instead of
    /// passing `check --connect` and failing every write; brought up to date as said, it is written.
    @Test func aTableHealth4aisOwnSchemaMadeIsRefusedWithTheFix() throws {
        guard let url = PostgresTestDatabase.url else { return }
        let schema = PostgresTestDatabase.freshSchema()
        let admin = try PostgresTestDatabase.connect(url)
        defer { admin.close() }
        let table = SQL.qualified(schema, "healthkit_metrics")
        try admin.execute("""
            CREATE SCHEMA \(SQL.identifier(schema));
            CREATE TABLE \(table) (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), user_id text NOT NULL, metric_type text NOT NULL,
              value float8, unit text, source_device text, started_at timestamptz NOT NULL, ended_at timestamptz, metadata jsonb,
              synced_at timestamptz DEFAULT now() NOT NULL, CONSTRAINT original_key UNIQUE (user_id, metric_type, started_at));
            CREATE VIEW \(SQL.qualified(schema, "v_healthkit_daily_quantity")) AS
              SELECT user_id, metric_type, started_at::date AS day, avg(value) AS avg_value FROM \(table)
              GROUP BY user_id, metric_type, started_at::date
            """)
        let sink = PostgresSink(configuration: configuration(url, schema), context: ConformanceFixtures.context())
        var fix = try #require(PostgresSinkTests.misconfiguration(sink))
        #expect(fix.contains("healthkit_metrics lacks the column journal_seq; healthkit_metrics lacks a unique key on "
                               + "(user_id, metric_type, source_device, started_at); healthkit_metrics has a unique key on "
                               + "(user_id, metric_type, started_at)")
            && fix.contains("To fix: set `schema` to a new one"), "\(fix)")
        // Only some of it done: still refused, for the old key; then for the view alone.
        try admin.execute("ALTER TABLE \(table) ADD COLUMN journal_seq bigint")
        do {
            let reason = try #require(PostgresSinkTests.misconfiguration(sink))
            #expect(reason.contains("has a unique key on (user_id, metric_type, started_at)") && !reason.contains("lacks the column"), "\(reason)")
        }
        try admin.execute("""
            UPDATE \(table) SET source_device = '' WHERE source_device IS NULL;
            ALTER TABLE \(table) ALTER COLUMN source_device SET DEFAULT '', ALTER COLUMN source_device SET NOT NULL,
              ADD CONSTRAINT healthkit_metrics_user_metric_source_start UNIQUE (user_id, metric_type, source_device, started_at),
              DROP CONSTRAINT original_key
            """)
        do {
            let reason = try #require(PostgresSinkTests.misconfiguration(sink))
            fix = reason
            #expect(reason.contains("the daily view v_healthkit_daily_quantity has other columns")
                && reason.hasSuffix("DROP VIEW IF EXISTS \(SQL.qualified(schema, "v_healthkit_daily_quantity"))"), "\(reason)")
        }
        // The statements the last message gives, as they are.
        let statements = try #require(PostgresSinkTests.fixStatements(fix))
        try admin.execute(statements)
        let fixed = try preparedSink(url, schema)
        defer { fixed.close() }
        // Two sources at one start: two rows (the old key would have refused the second).
        var second = ConformanceFixtures.numbered(1)
        second.id = "SECOND-SOURCE"
        second.sourceName = "Another"
        second.device = nil
        try fixed.write([JournalEntry(sequence: 1, source: "test", item: .sample(ConformanceFixtures.numbered(1))),
                         JournalEntry(sequence: 2, source: "test", item: .sample(second))], cursor: 2)
        #expect(try admin.query("SELECT count(*) FROM \(table)").int(0, 0) == 2)
    }

    /// health4ai's Supabase migrations (schema `healthkit`: `user_id uuid REFERENCES auth.users`,
    /// policies `auth.uid() = user_id`, the summaries' day column `date`) are refused at prepare,
    /// without tiering too, naming both and with statements that work as given: before, only the
    /// metrics' key was named, and after those statements every prepare failed on `summary_date`
    /// (42703), then on the policy (`text = uuid`, 42883), then every write on the uuid column
    /// (42804), each with "put the column back as it was". After them the rows are written and
    /// healthrouter's policy lets the user read them.
    @Test func health4aisSupabaseMigrationsAreRefusedWithStatementsThatWork() throws {
        guard let url = PostgresTestDatabase.url else { return }
        try withSupabaseLikeDatabase(url) { dbURL, reader in
            let admin = try PostgresConnection(url: dbURL)
            defer { admin.close() }
            try admin.execute("""
                CREATE TABLE auth.users (id uuid PRIMARY KEY);
                INSERT INTO auth.users VALUES ('\(Self.userId.lowercased())');
                CREATE SCHEMA healthkit;
                CREATE TABLE healthkit.healthkit_metrics (id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
                  user_id uuid NOT NULL REFERENCES auth.users (id), metric_type text NOT NULL, value float8, unit text,
                  source_device text, started_at timestamptz NOT NULL, ended_at timestamptz, metadata jsonb,
                  synced_at timestamptz DEFAULT now() NOT NULL, UNIQUE (user_id, metric_type, started_at));
                CREATE TABLE healthkit.healthkit_daily_summaries (id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
                  user_id uuid NOT NULL REFERENCES auth.users (id), metric_type text NOT NULL, date date NOT NULL,
                  avg_value float8, min_value float8, max_value float8, sum_value float8, sample_count int, unit text,
                  created_at timestamptz DEFAULT now() NOT NULL, UNIQUE (user_id, metric_type, date));
                ALTER TABLE healthkit.healthkit_metrics ENABLE ROW LEVEL SECURITY;
                ALTER TABLE healthkit.healthkit_daily_summaries ENABLE ROW LEVEL SECURITY;
                CREATE POLICY own ON healthkit.healthkit_metrics USING (auth.uid() = user_id);
                CREATE POLICY own ON healthkit.healthkit_daily_summaries USING (auth.uid() = user_id);
                CREATE VIEW healthkit.v_healthkit_daily_quantity AS
                  SELECT user_id, metric_type, (started_at AT TIME ZONE 'America/New_York')::date AS day, avg(value) AS avg_value
                  FROM healthkit.healthkit_metrics GROUP BY 1, 2, 3;
                """)
            let configuration = PostgresSink.Configuration(url: dbURL, userId: Self.userId, schema: "healthkit", rowLevelSecurity: true)
            let sink = PostgresSink(configuration: configuration, context: ConformanceFixtures.context())
            let reason = try #require(PostgresSinkTests.misconfiguration(sink))
            #expect(reason.contains("healthkit_metrics.user_id is uuid (health4ai's Supabase migrations)")
                && reason.contains("healthkit_daily_summaries.user_id is uuid")
                && reason.contains("healthkit_daily_summaries names its day column date"), "\(reason)")
            try admin.execute(try #require(PostgresSinkTests.fixStatements(reason)))
            let fixed = PostgresSink(configuration: configuration, context: ConformanceFixtures.context())
            _ = try fixed.prepare()
            try fixed.write(ConformanceFixtures.entries(ConformanceFixtures.all), cursor: 7)
            fixed.close()
            let types = try admin.execute("SELECT string_agg(format_type(atttypid, atttypmod), ',' ORDER BY attrelid) FROM pg_attribute "
                                              + "WHERE attname = 'user_id' AND attrelid IN ('healthkit.healthkit_metrics'::regclass, "
                                              + "'healthkit.healthkit_daily_summaries'::regclass)")
            #expect(types.text(0, 0) == "text,text")
            try admin.execute("GRANT USAGE ON SCHEMA healthkit, auth TO \(reader); "
                                  + "GRANT SELECT ON healthkit.healthkit_metrics, healthkit.healthkit_daily_summaries TO \(reader)")
            let mine = try admin.transaction { () -> Int64? in
                try admin.execute("SET LOCAL ROLE \(reader)")
                try admin.query("SELECT set_config('request.jwt.claim.sub', $1, true)", [Self.userId.lowercased()])
                _ = try admin.execute("SELECT count(*) FROM healthkit.healthkit_daily_summaries WHERE summary_date IS NOT NULL")
                return try admin.execute("SELECT count(*) FROM healthkit.healthkit_metrics").int(0, 0)
            }
            #expect(mine == 6)  // all but alice's heart rate, as rowLevelSecurityUsesAuthUid
        }
    }

    /// A column of healthrouter's own table renamed since (`metadata` → `meta`): the statements
    /// the message gives add it back, and the sink writes again (they only touched journal_seq).
    @Test func aColumnRenamedSinceIsAddedBackByTheStatements() throws {
        guard let url = PostgresTestDatabase.url else { return }
        let schema = PostgresTestDatabase.freshSchema()
        try preparedSink(url, schema).close()
        let admin = try PostgresTestDatabase.connect(url)
        defer { admin.close() }
        let table = SQL.qualified(schema, "healthkit_metrics")
        try admin.execute("ALTER TABLE \(table) RENAME COLUMN metadata TO meta")
        let sink = PostgresSink(configuration: configuration(url, schema), context: ConformanceFixtures.context())
        let reason = try #require(PostgresSinkTests.misconfiguration(sink))
        #expect(reason.contains("healthkit_metrics lacks the column metadata") && reason.contains("or they were altered since"), "\(reason)")
        try admin.execute(try #require(PostgresSinkTests.fixStatements(reason)))
        let fixed = try preparedSink(url, schema)
        defer { fixed.close() }
        try fixed.write(ConformanceFixtures.entries([ConformanceFixtures.numbered(1)]), cursor: 1)
        #expect(try admin.query("SELECT count(*) FROM \(table) WHERE metadata IS NOT NULL").int(0, 0) == 1)
    }

    /// A column whose type a person changed (`value` to text) is misconfigured, with what to do,
    /// not retried as a server that is down (`avg(text)` does not exist, SQLSTATE 42883).
    @Test func aColumnOfAnotherTypeIsMisconfigured() throws {
        guard let url = PostgresTestDatabase.url else { return }
        let schema = PostgresTestDatabase.freshSchema()
        try preparedSink(url, schema).close()
        let admin = try PostgresTestDatabase.connect(url)
        defer { admin.close() }
        try admin.execute("DROP VIEW \(SQL.qualified(schema, "v_healthkit_daily_quantity")); "
                              + "ALTER TABLE \(SQL.qualified(schema, "healthkit_metrics")) ALTER COLUMN value TYPE text")
        let sink = PostgresSink(configuration: configuration(url, schema), context: ConformanceFixtures.context())
        let reason = try #require(PostgresSinkTests.misconfiguration(sink))
        #expect(reason.contains("42883") && reason.contains("not as healthrouter made them"), "\(reason)")
    }

    /// Every category row holds HealthKit's raw integer, as health4ai's app writes it: the value
    /// name's code, 0 (NotApplicable) for categories without a value; read back, each sample is
    /// the one written.
    @Test func categoryRowsHoldHealthKitsRawIntegers() throws {
        guard let url = PostgresTestDatabase.url else { return }
        let schema = PostgresTestDatabase.freshSchema()
        let sink = try preparedSink(url, schema)
        defer { sink.close() }
        func category(_ n: Int, _ type: String, _ value: String?, number: Double? = nil) -> Sample {
            var sample = ConformanceFixtures.numbered(n)
            sample.kind = .category
            sample.type = type
            sample.categoryValue = value
            sample.value = number
            sample.unit = nil
            return sample
        }
        let samples = [
            category(1, "HKCategoryTypeIdentifierVaginalBleeding", "HKCategoryValueVaginalBleedingMedium"),
            category(2, "HKCategoryTypeIdentifierMindfulSession", "HKCategoryValueNotApplicable"),
            category(3, "HKCategoryTypeIdentifierMindfulSession", nil),
            category(4, "HKCategoryTypeIdentifierSleepAnalysis", "asleepDeep"),
            category(5, "HKCategoryTypeIdentifierAppleStandHour", "HKCategoryValueAppleStandHourIdle"),
            category(6, "HKCategoryTypeIdentifierHeadache", "value_7"),
            category(7, "HKCategoryTypeIdentifierCoughing", "HKCategoryValueSeverityModerate", number: 5),
            category(8, "HKCategoryTypeIdentifierNewThing", "SomethingNew"),
        ]
        try sink.write(ConformanceFixtures.entries(samples), cursor: 8)
        let connection = try PostgresTestDatabase.connect(url)
        defer { connection.close() }
        let result = try connection.execute("SELECT coalesce(value::text, 'null') || ' ' || unit FROM "
                                                + SQL.qualified(schema, "healthkit_metrics") + " ORDER BY started_at")
        #expect((0..<result.rowCount).compactMap { result.text($0, 0) }
                == ["3 category", "0 category", "0 category", "4 category", "1 category", "7 category", "3 category",
                    "null category"])
        var read: [String: Sample] = [:]
        try sink.readBack(batchSize: 3) { read[$0.id] = $0 }
        for sample in samples { #expect(read[sample.id] == sample, "\(sample.id)") }
    }

    @Test func rowsAreWhatHealth4aiReads() throws {
        guard let url = PostgresTestDatabase.url else { return }
        let schema = PostgresTestDatabase.freshSchema()
        let sink = try preparedSink(url, schema)
        var oxygen = ConformanceFixtures.numbered(5)
        oxygen.type = "HKQuantityTypeIdentifierOxygenSaturation"
        oxygen.value = 97
        oxygen.unit = "%"
        // `°C` is HealthKit's `degC`, as health4ai's app writes it; a type healthrouter does not
        // know keeps its own `degC` (read back as written too).
        var temperature = ConformanceFixtures.numbered(6)
        temperature.type = "HKQuantityTypeIdentifierBodyTemperature"
        temperature.value = 36.6
        temperature.unit = "°C"
        var unknown = ConformanceFixtures.numbered(7)
        unknown.type = "HKQuantityTypeIdentifierSomethingNew"
        unknown.unit = "degC"
        // VO2 max's canonical `mL/(kg·min)` is HealthKit's `mL/min·kg` (export.xml's unit, HKUnit's
        // unitString), as health4ai's app writes it; a type healthrouter does not know keeps its own.
        var vo2 = ConformanceFixtures.numbered(8)
        vo2.type = "HKQuantityTypeIdentifierVO2Max"
        vo2.value = 44.6
        vo2.unit = "mL/(kg·min)"
        var unknownRate = ConformanceFixtures.numbered(9)
        unknownRate.type = "HKQuantityTypeIdentifierSomethingElse"
        unknownRate.unit = "mL/min·kg"
        try sink.write(ConformanceFixtures.entries(ConformanceFixtures.all + [oxygen, temperature, unknown, vo2, unknownRate]),
                       cursor: 10)
        var read: [String: Sample] = [:]
        try sink.readBack(batchSize: 100) { read[$0.id] = $0 }
        #expect(read[temperature.id] == temperature && read[unknown.id] == unknown)
        #expect(read[vo2.id] == vo2 && read[unknownRate.id] == unknownRate)
        sink.close()
        let connection = try PostgresTestDatabase.connect(url)
        defer { connection.close() }
        func row(_ type: String) throws -> [String?] {
            let result = try connection.query(
                "SELECT user_id, value::text, unit, source_device, metadata ->> 'sleep_stage', metadata ->> 'workout_type', "
                    + "metadata ->> 'duration_seconds', jsonb_typeof(metadata) FROM \(SQL.qualified(schema, "healthkit_metrics")) "
                    + "WHERE metric_type = $1", [type])
            #expect(result.rowCount == 1)
            return (0..<8).map { result.text(0, $0) }
        }
        let sleep = try row("HKCategoryTypeIdentifierSleepAnalysis")
        #expect(sleep[0] == Self.userId.lowercased())
        #expect(sleep[1] == "5")
        #expect(sleep[2] == "category")
        #expect(sleep[4] == "HKCategoryValueSleepAnalysisAsleepREM")
        let workout = try row("HKWorkoutTypeIdentifier")
        #expect(workout[2] == "seconds")
        #expect(workout[5] == "HKWorkoutActivityTypeRunning")
        #expect(workout[6] == "3612.4")
        #expect(workout[7] == "object")
        #expect(try row("HKQuantityTypeIdentifierOxygenSaturation")[1] == "0.97")
        #expect(try row("HKQuantityTypeIdentifierBodyTemperature")[2] == "degC")
        #expect(try row("HKQuantityTypeIdentifierVO2Max")[2] == "mL/min·kg")
        let fields = try connection.query("SELECT metadata ->> 'healthrouter:fields' FROM \(SQL.qualified(schema, "healthkit_metrics")) "
                                              + "WHERE metric_type = $1", ["HKQuantityTypeIdentifierBodyTemperature"])
        #expect(fields.text(0, 0)?.contains("unit") != true, "\(fields.text(0, 0) ?? "")")
        #expect(try row("HKQuantityTypeIdentifierHeartRate")[3] == "Apple Watch")
        #expect(try row(ConformanceFixtures.injection)[3] == ConformanceFixtures.injection)
        let view = try connection.execute("SELECT count(*) FROM \(SQL.qualified(schema, "v_healthkit_daily_quantity"))")
        #expect(view.int(0, 0) ?? 0 > 0)
        // Kinds without a health4ai layout: a `record` row with NULL value, the sample in metadata, not in the view.
        for record in [ConformanceFixtures.bloodPressure, ConformanceFixtures.activitySummary] {
            let result = try connection.query(
                "SELECT value IS NULL, unit, metadata ->> 'healthrouter:kind', metadata ? 'healthrouter:canonical' "
                    + "FROM \(SQL.qualified(schema, "healthkit_metrics")) WHERE metric_type = $1", [record.type])
            #expect(result.rowCount == 1)
            #expect((0..<4).map { result.text(0, $0) } == ["t", "record", record.kind.name, "t"])
            let inView = try connection.query("SELECT count(*) FROM \(SQL.qualified(schema, "v_healthkit_daily_quantity")) "
                                                  + "WHERE metric_type = $1", [record.type])
            #expect(inView.int(0, 0) == 0)
        }
    }

    /// Two ids under one key share a row, the later journal entry's: delivering both again in
    /// separate batches (a backfill) writes nothing, instead of the earlier one taking the row and
    /// the later one taking it back. The same id replaces its row whatever its sequence (a
    /// migration numbers entries anew).
    @Test func anEarlierIdUnderTheSameKeyDoesNotTakeTheRowBack() throws {
        guard let url = PostgresTestDatabase.url else { return }
        let schema = PostgresTestDatabase.freshSchema()
        let sink = try preparedSink(url, schema)
        defer { sink.close() }
        let first = ConformanceFixtures.numbered(1)
        var second = first
        second.id = "00000000-0000-4000-8000-0000000000b2"
        second.value = 70
        try sink.write(ConformanceFixtures.entries([first], from: 1), cursor: 1)
        try sink.write(ConformanceFixtures.entries([second], from: 2), cursor: 2)
        let connection = try PostgresTestDatabase.connect(url)
        defer { connection.close() }
        func row() throws -> [String?] {
            let result = try connection.execute("SELECT metadata ->> 'healthrouter_id', value, xmin::text FROM "
                                                    + SQL.qualified(schema, "healthkit_metrics"))
            #expect(result.rowCount == 1)
            return (0..<3).map { result.text(0, $0) }
        }
        let written = try row()
        #expect(written[0] == second.id && written[1] == "70")
        try sink.write(ConformanceFixtures.entries([first], from: 1), cursor: 2)
        try sink.write(ConformanceFixtures.entries([second], from: 2), cursor: 2)
        #expect(try row() == written)
        var edited = second
        edited.value = 80
        try sink.write(ConformanceFixtures.entries([edited], from: 1), cursor: 2)
        #expect(try row()[1] == "80")
    }

    /// A sample whose start, type or device changed under its id replaces its row (the upsert
    /// matches health4ai's natural key, so the old row is deleted first): no dead letter, no stale row.
    @Test func aSampleThatMovedUnderItsIdReplacesItsRow() throws {
        guard let url = PostgresTestDatabase.url else { return }
        let schema = PostgresTestDatabase.freshSchema()
        let sink = try preparedSink(url, schema)
        defer { sink.close() }
        let first = ConformanceFixtures.numbered(1), other = ConformanceFixtures.numbered(2)
        try sink.write(ConformanceFixtures.entries([first, other]), cursor: 2)
        var moved = first
        moved.start = ConformanceFixtures.at(300)
        moved.end = moved.start
        moved.value = 70.5
        var retyped = other
        retyped.type = "HKQuantityTypeIdentifierRestingHeartRate"
        try sink.write(ConformanceFixtures.entries([moved, retyped], from: 3), cursor: 4)
        let connection = try PostgresTestDatabase.connect(url)
        defer { connection.close() }
        let rows = try connection.execute("SELECT metadata ->> 'healthrouter_id', metric_type, value, "
                                              + "extract(epoch FROM started_at)::bigint FROM \(SQL.qualified(schema, "healthkit_metrics")) "
                                              + "ORDER BY 1")
        #expect(rows.rowCount == 2)
        #expect(rows.text(0, 0) == first.id && rows.text(0, 2) == "70.5" && rows.text(0, 3) == String(moved.start.epochMilliseconds / 1000))
        #expect(rows.text(1, 0) == other.id && rows.text(1, 1) == "HKQuantityTypeIdentifierRestingHeartRate")
        var read: [String: Sample] = [:]
        try sink.readBack(batchSize: 10) { read[$0.id] = $0 }
        #expect(read[first.id] == moved)
        #expect(read[other.id] == retyped)

        // Both versions of an id in one batch (a backfill of an edited sample): the last one lands.
        var third = ConformanceFixtures.numbered(3)
        var edited = third
        edited.start = ConformanceFixtures.at(900)
        edited.end = edited.start
        try sink.write(ConformanceFixtures.entries([third, edited], from: 5), cursor: 6)
        third = edited
        let versions = try connection.execute("SELECT extract(epoch FROM started_at)::bigint FROM \(SQL.qualified(schema, "healthkit_metrics")) "
                                                  + "WHERE metadata ->> 'healthrouter_id' = '\(third.id)'")
        #expect(versions.rowCount == 1 && versions.text(0, 0) == String(edited.start.epochMilliseconds / 1000))
    }

    @Test func schemaCreationTwiceAndReadBack() throws {
        guard let url = PostgresTestDatabase.url else { return }
        let schema = PostgresTestDatabase.freshSchema()
        for _ in 0..<2 {
            let sink = PostgresSink(configuration: configuration(url, schema), context: ConformanceFixtures.context())
            _ = try sink.prepare()
            sink.close()
        }
        let sink = try preparedSink(url, schema)
        defer { sink.close() }
        try sink.write(ConformanceFixtures.entries(ConformanceFixtures.all), cursor: 7)
        var read: [String: Sample] = [:]
        try sink.readBack(batchSize: 2) { read[$0.id] = $0 }
        #expect(Set(read.keys) == Set(ConformanceFixtures.all.map(\.id)))
        #expect(read[ConformanceFixtures.steps.id]?.value == 104.5)
        #expect(read[ConformanceFixtures.sleep.id]?.categoryValue == "HKCategoryValueSleepAnalysisAsleepREM")
        #expect(read[ConformanceFixtures.workout.id]?.kind == .workout)
        // The `healthrouter:` metadata keys restore what the columns cannot hold: the samples come back exactly.
        for sample in ConformanceFixtures.all {
            #expect(read[sample.id] == sample, "\(sample.id)")
        }
        let connection = try PostgresTestDatabase.connect(url)
        defer { connection.close() }
        // The fields travel in one string key, so the GIN index on metadata indexes one key, not one per field.
        let row = try connection.execute(
            "SELECT (metadata ->> 'healthrouter:fields')::jsonb ->> 'start_offset', "
                + "(metadata ->> 'healthrouter:fields')::jsonb ? 'source_version', "
                + "(SELECT count(*) FROM jsonb_object_keys(metadata) k WHERE k LIKE 'healthrouter:%') FROM "
                + "\(SQL.qualified(schema, "healthkit_metrics")) WHERE metadata ->> 'healthrouter_id' = '\(ConformanceFixtures.heartRate.id)'")
        #expect(row.text(0, 0) == "3600")
        #expect(row.text(0, 1) == "t")
        #expect(row.text(0, 2) == "1")
    }

    /// jsonb cannot hold U+0000: a metadata string or key holding one (also in a value's own JSON)
    /// costs no sample, and no dead letter: `metadata` holds U+FFFD there, and read-back returns
    /// the sample exactly from `healthrouter:canonical`.
    @Test func aNULInMetadataIsStoredAsTheReplacementCharacter() throws {
        guard let url = PostgresTestDatabase.url else { return }
        let schema = PostgresTestDatabase.freshSchema()
        try conformance(url, schema: schema).storedWithoutDeadLetters(ConformanceFixtures.withNUL)
        let connection = try PostgresTestDatabase.connect(url)
        defer { connection.close() }
        let plain = ConformanceFixtures.withNUL[0]
        let row = try connection.query("SELECT metadata ->> 'note', metadata ? $1, metadata -> 'raw' ->> 'x', "
                                           + "metadata ? 'healthrouter:canonical' FROM \(SQL.qualified(schema, "healthkit_metrics")) "
                                           + "WHERE metadata ->> 'healthrouter_id' = $2", ["k\u{FFFD}", plain.id])
        #expect(row.rowCount == 1)
        #expect(row.text(0, 0) == "a\u{FFFD}b")
        #expect(row.bool(0, 1) == true)
        #expect(row.text(0, 2) == "c\u{FFFD}d\\u0000")
        #expect(row.bool(0, 3) == true)
        let sink = try preparedSink(url, schema)
        defer { sink.close() }
        var read: [String: Sample] = [:]
        try sink.readBack(batchSize: 10) { read[$0.id] = $0 }
        #expect(read == Dictionary(uniqueKeysWithValues: ConformanceFixtures.withNUL.map { ($0.id, $0) }))
    }

    /// Rows written before `healthrouter:fields` (a key per field) read back the same.
    /// A producer metadata key that collides with a key the mapping writes does not replace the
    /// mapping's value (jsonb keeps one): the id and the workout come back; the producer's value
    /// of that key is the one not kept (README).
    @Test func aProducerKeyNamedLikeAMappingKeyDoesNotReplaceTheId() throws {
        guard let url = PostgresTestDatabase.url else { return }
        let sink = try preparedSink(url, PostgresTestDatabase.freshSchema())
        defer { sink.close() }
        var heartRate = ConformanceFixtures.heartRate
        heartRate.metadata = [MetadataEntry("healthrouter_id", .string("zzz")), MetadataEntry("kept", .bool(true))]
        var workout = ConformanceFixtures.workout
        workout.metadata = [MetadataEntry("workout_type", .string("HKWorkoutActivityTypeYoga"))]
        try sink.write(ConformanceFixtures.entries([heartRate, workout]), cursor: 2)
        var read: [String: Sample] = [:]
        try sink.readBack(batchSize: 10) { read[$0.id] = $0 }
        #expect(Set(read.keys) == [heartRate.id, workout.id])
        #expect(read[heartRate.id]?.value == heartRate.value)
        #expect(read[heartRate.id]?.metadata.contains(MetadataEntry("kept", .bool(true))) == true)
        // A workout travels whole in its row: it comes back exactly, its producer's key too.
        #expect(read[workout.id] == workout)
    }

    @Test func rowsWithAKeyPerFieldReadBack() throws {
        guard let url = PostgresTestDatabase.url else { return }
        let schema = PostgresTestDatabase.freshSchema()
        let sink = try preparedSink(url, schema)
        defer { sink.close() }
        try sink.write(ConformanceFixtures.entries(ConformanceFixtures.all), cursor: 7)
        let connection = try PostgresTestDatabase.connect(url)
        defer { connection.close() }
        let rewritten = try connection.execute(
            "UPDATE \(SQL.qualified(schema, "healthkit_metrics")) SET metadata = (metadata - 'healthrouter:fields') || "
                + "(SELECT jsonb_object_agg('healthrouter:' || key, value) FROM jsonb_each((metadata ->> 'healthrouter:fields')::jsonb)) "
                + "WHERE metadata ? 'healthrouter:fields'")
        #expect(rewritten.affectedRows >= 3)
        var read: [String: Sample] = [:]
        try sink.readBack(batchSize: 100) { read[$0.id] = $0 }
        for sample in ConformanceFixtures.all { #expect(read[sample.id] == sample, "\(sample.id)") }
    }

    /// Runs `body` on a database of its own (its URL) with a stand-in for Supabase's `auth.uid()`
    /// (the `request.jwt.claim.sub` setting) and a role without login (its quoted name) that stands
    /// for Supabase's API roles; both are dropped afterwards.
    func withSupabaseLikeDatabase(_ url: String, _ body: (_ url: String, _ reader: String) throws -> Void) throws {
        let database = PostgresTestDatabase.freshSchema()
        let admin = try PostgresTestDatabase.connect(url)
        defer { admin.close() }
        try admin.execute("CREATE DATABASE \(SQL.identifier(database))")
        let reader = SQL.identifier(database + "_reader")
        defer {
            _ = try? admin.execute("DROP DATABASE \(SQL.identifier(database)) WITH (FORCE)")
            _ = try? admin.execute("DROP ROLE IF EXISTS \(reader)")
        }
        let dbURL = url + " dbname=" + database
        let setup = try PostgresConnection(url: dbURL)
        try setup.execute("""
            CREATE SCHEMA auth;
            CREATE FUNCTION auth.uid() RETURNS uuid LANGUAGE sql STABLE AS
              $$ SELECT nullif(current_setting('request.jwt.claim.sub', true), '')::uuid $$;
            CREATE ROLE \(reader) NOLOGIN;
            """)
        setup.close()
        try body(dbURL, reader)
    }

    @Test func rowLevelSecurityUsesAuthUid() throws {
        guard let url = PostgresTestDatabase.url else { return }
        try withSupabaseLikeDatabase(url) { dbURL, reader in
            let configuration = PostgresSink.Configuration(url: dbURL, userId: Self.userId, rowLevelSecurity: true)
            for _ in 0..<2 {
                let sink = PostgresSink(configuration: configuration, context: ConformanceFixtures.context())
                _ = try sink.prepare()
                try sink.write(ConformanceFixtures.entries(ConformanceFixtures.all), cursor: 7)
                sink.close()
            }
            // A sink without the option on the same schema (another config) keeps the view's security_invoker,
            // also as an administrator wrote it (`on`, as Supabase's documentation does).
            let admin2 = try PostgresConnection(url: dbURL)
            try admin2.execute("ALTER VIEW v_healthkit_daily_quantity SET (security_invoker = on)")
            admin2.close()
            let plain = PostgresSink(configuration: PostgresSink.Configuration(url: dbURL, userId: Self.userId),
                                     context: ConformanceFixtures.context())
            _ = try plain.prepare()
            plain.close()
            let check = try PostgresConnection(url: dbURL)
            defer { check.close() }
            try check.execute("GRANT SELECT ON healthkit_metrics, healthkit_daily_summaries, v_healthkit_daily_quantity TO \(reader); "
                                  + "GRANT USAGE ON SCHEMA auth TO \(reader)")
            let view = "SELECT count(*) FROM v_healthkit_daily_quantity"
            let counts = try check.transaction { () -> (Int64?, Int64?, Int64?, Int64?) in
                try check.execute("SET LOCAL ROLE \(reader)")
                let none = try check.execute("SELECT count(*) FROM healthkit_metrics").int(0, 0)
                let noneInView = try check.execute(view).int(0, 0)
                try check.query("SELECT set_config('request.jwt.claim.sub', $1, true)", [Self.userId.lowercased()])
                let mine = try check.execute("SELECT count(*) FROM healthkit_metrics").int(0, 0)
                return (none, mine, noneInView, try check.execute(view).int(0, 0))
            }
            #expect(counts.0 == 0)
            #expect(counts.1 == 6)  // all but alice's heart rate
            // The daily view holds to the policies too (it runs with the reader's rights).
            #expect(counts.2 == 0)
            #expect((counts.3 ?? 0) > 0)
        }
    }

    /// Supabase grants its API roles every privilege on the tables of `public`: with RLS, they must
    /// still neither store a schema version (the sink would refuse to start) nor move the cursor
    /// (the sink would skip data), nor read the folded ids; the sink itself keeps working.
    @Test func rowLevelSecurityClosesTheBookkeepingTables() throws {
        guard let url = PostgresTestDatabase.url else { return }
        try withSupabaseLikeDatabase(url) { dbURL, reader in
            var configuration = PostgresSink.Configuration(url: dbURL, userId: Self.userId, rowLevelSecurity: true)
            configuration.summarizeAfter = .days(30)
            let sink = PostgresSink(configuration: configuration, context: ConformanceFixtures.context())
            _ = try sink.prepare()
            try sink.write(ConformanceFixtures.entries(ConformanceFixtures.all), cursor: 7)
            sink.close()
            let check = try PostgresConnection(url: dbURL)
            defer { check.close() }
            try check.execute("GRANT ALL ON ALL TABLES IN SCHEMA public TO \(reader); GRANT USAGE ON SCHEMA auth TO \(reader)")
            func asReader<T>(_ body: () throws -> T) throws -> T {
                try check.transaction {
                    try check.execute("SET LOCAL ROLE \(reader)")
                    try check.query("SELECT set_config('request.jwt.claim.sub', $1, true)", [Self.userId.lowercased()])
                    return try body()
                }
            }
            #expect(throws: PostgresError.self) {
                try asReader { try check.execute("INSERT INTO healthrouter_schema (version) VALUES (99)") }
            }
            #expect(throws: PostgresError.self) {
                try asReader { try check.execute("INSERT INTO healthrouter_cursor (sink, journal_seq) VALUES ('other', 1)") }
            }
            let moved = try asReader { try check.execute("UPDATE healthrouter_cursor SET journal_seq = 1000000").affectedRows }
            #expect(moved == 0)
            let seen = try asReader {
                try ["healthrouter_schema", "healthrouter_cursor", "healthkit_summarized_ids"].map {
                    try check.execute("SELECT count(*) FROM \($0)").int(0, 0)
                }
            }
            #expect(seen == [0, 0, 0])
            // Supabase's API roles, granted everything as its default privileges do: TRUNCATE, which
            // RLS does not cover, is taken back at the next prepare; reading stays.
            try check.execute("""
                DO $$ BEGIN CREATE ROLE anon NOLOGIN; EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$;
                DO $$ BEGIN CREATE ROLE authenticated NOLOGIN; EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$;
                GRANT ALL ON ALL TABLES IN SCHEMA public TO anon, authenticated
                """)
            // The sink, as the owner, still reads its cursor and writes.
            let again = PostgresSink(configuration: configuration, context: ConformanceFixtures.context())
            defer { again.close() }
            #expect(try again.prepare() == 7)
            try again.write(ConformanceFixtures.entries([ConformanceFixtures.numbered(40)], from: 8), cursor: 8)
            for role in ["anon", "authenticated"] {
                for table in ["healthkit_metrics", "healthkit_daily_summaries", "healthrouter_cursor", "healthrouter_schema",
                              "healthkit_summarized_ids"] {
                    #expect(try check.query("SELECT has_table_privilege($1, $2, 'TRUNCATE')", [role, table]).bool(0, 0) == false,
                            "\(role) \(table)")
                }
                #expect(try check.query("SELECT has_table_privilege($1, 'healthkit_metrics', 'SELECT')", [role]).bool(0, 0) == true)
            }
        }
    }

    /// The folded ids (each folded sample's user, day and value) stay after tiering is turned off,
    /// for tombstones: a schema tiered without RLS, then given RLS without tiering, closes them too.
    /// They were left open to every API role.
    @Test func rowLevelSecurityClosesTheFoldedIdsAfterTieringIsOff() throws {
        guard let url = PostgresTestDatabase.url else { return }
        try withSupabaseLikeDatabase(url) { dbURL, _ in
            var tiered = PostgresSink.Configuration(url: dbURL, userId: Self.userId)
            tiered.summarizeAfter = .days(30)
            let first = PostgresSink(configuration: tiered, context: ConformanceFixtures.context())
            _ = try first.prepare()
            first.close()
            let secured = PostgresSink(configuration: PostgresSink.Configuration(url: dbURL, userId: Self.userId, rowLevelSecurity: true),
                                       context: ConformanceFixtures.context())
            _ = try secured.prepare()
            secured.close()
            let check = try PostgresConnection(url: dbURL)
            defer { check.close() }
            #expect(try check.execute("SELECT relrowsecurity FROM pg_class WHERE oid = 'healthkit_summarized_ids'::regclass").bool(0, 0) == true)
        }
    }

    /// A refused privilege says which fix: RLS forced on the owner's tables, or no USAGE on `auth`
    /// for the policies' function.
    @Test func privilegeRefusalsNameTheirFix() {
        func reason(_ message: String) -> String {
            guard case .misconfigured(let reason) = PostgresError(sqlState: "42501", message: message, operation: "x").sinkError else {
                return "not misconfigured"
            }
            return reason
        }
        #expect(reason("new row violates row-level security policy for table \"healthkit_metrics\"")
                    .contains("To fix: the role must bypass row-level security (BYPASSRLS"))
        #expect(reason("permission denied for schema auth").contains("To fix: GRANT USAGE ON SCHEMA auth TO the role"))
        #expect(reason("permission denied for schema health").contains("To fix: the role must own the sink's tables"))
        #expect(reason("must be owner of table healthkit_metrics").contains("To fix: the role must own the sink's tables"))
    }
}
