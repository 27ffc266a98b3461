import PostgresClient

/// The `postgres` sink's tables, compatible with health4ai's schema (health4ai-schema.md):
/// `healthkit_metrics`, `healthkit_daily_summaries` and the `v_healthkit_daily_quantity` view,
/// plus healthrouter's bookkeeping (`healthrouter_schema`, `healthrouter_cursor`).
struct PostgresSinkSchema {
    static let version: Int64 = 1
    typealias Column = PostgresUpsertTable.Column

    let schema: String
    let metrics: PostgresUpsertTable

    init(schema: String) {
        self.schema = schema
        metrics = PostgresUpsertTable(
            schema: schema, name: "healthkit_metrics",
            columns: [
                // The key's text columns are in the C collation: the unique index, the other indexes
                // and the batch's dedup sort compare bytes instead of applying a locale's rules, several
                // times cheaper (every insert compares them a dozen times). Equality, so uniqueness and
                // health4ai's `=` lookups, is the same; only ORDER BY of non-ASCII names differs.
                // Tables created before keep their collation.
                Column("id", "uuid NOT NULL"), Column("user_id", "text COLLATE \"C\" NOT NULL"),
                Column("metric_type", "text COLLATE \"C\" NOT NULL"),
                Column("value", "double precision"), Column("unit", "text"),
                Column("source_device", "text COLLATE \"C\" NOT NULL DEFAULT ''", staging: "text COLLATE \"C\""),
                .instant("started_at", required: true), .instant("ended_at", required: false),
                Column("metadata", "jsonb"), Column("journal_seq", "bigint", compared: false),
            ],
            key: ["user_id", "metric_type", "source_device", "started_at"],
            extraDeclarations: [
                "synced_at timestamptz NOT NULL DEFAULT now()",
                "PRIMARY KEY (id)",
                "CONSTRAINT healthkit_metrics_user_metric_source_start UNIQUE (user_id, metric_type, source_device, started_at)",
            ],
            touch: ["synced_at = now()"],
            // Two ids under one key (health4ai's key, by design) share the row, the later journal
            // entry winning: an earlier one delivered again (a backfill) leaves it alone instead of
            // flipping it back and forth. The same id always replaces its row (an edit).
            updateCondition: "t.id = EXCLUDED.id OR t.journal_seq IS NULL OR t.journal_seq <= EXCLUDED.journal_seq")
    }

    func name(_ table: String) -> String { SQL.qualified(schema, table) }

    /// The ids `summarize_after` folded into daily summaries, with the day, type, unit and value
    /// each added to (see `PostgresSink.summarize`, `unsummarize`), and `raw_key`, the raw row's key
    /// as a hash (`rawKey`), unique: a sample of another id under a key already folded is not
    /// counted again (a hash: the key's own columns made its index about 220 bytes a row, the hash's
    /// is about 45). Tables created before those columns get them (NULL in the rows already there:
    /// their values cannot be taken back out, their keys are not checked).
    var summarizedIdsDDL: [String] {
        let table = name("healthkit_summarized_ids")
        return [
            "CREATE TABLE IF NOT EXISTS \(table) (id uuid PRIMARY KEY)",
            "ALTER TABLE \(table) ADD COLUMN IF NOT EXISTS user_id text, ADD COLUMN IF NOT EXISTS metric_type text, "
                + "ADD COLUMN IF NOT EXISTS summary_date date, ADD COLUMN IF NOT EXISTS unit text, "
                + "ADD COLUMN IF NOT EXISTS value double precision, ADD COLUMN IF NOT EXISTS raw_key uuid",
            "CREATE UNIQUE INDEX IF NOT EXISTS healthkit_summarized_ids_raw_key ON \(table) (raw_key)",
            // A tombstone that removes a day's extreme reads the day's kept values (B-tree
            // deduplication keeps this at about 8 bytes a row).
            "CREATE INDEX IF NOT EXISTS healthkit_summarized_ids_day ON \(table) (user_id, metric_type, summary_date)",
        ]
    }

    /// The `healthkit_metrics` key `(user_id, metric_type, source_device, started_at)` of the row
    /// named `row`, as a UUID: the MD5 of a JSON array of them (JSON quoting keeps two keys' texts
    /// apart; the instant as epoch seconds, whatever the session's time zone).
    static func rawKey(of row: String) -> String {
        "md5(jsonb_build_array(\(row).user_id, \(row).metric_type, \(row).source_device, "
            + "extract(epoch FROM \(row).started_at))::text)::uuid"
    }

    /// The index names `ddl` gives each table (primary keys by PostgreSQL's `<table>_pkey`), and
    /// with `tiered` `summarizedIdsDDL` and the foldable rows' index, by which `RenamedTables`
    /// tells a table renamed from one that was dropped.
    static func indexNames(tiered: Bool) -> [String: [String]] {
        var names = [
            "healthkit_metrics": [metricsPrimaryKey, "healthkit_metrics_user_metric_source_start", "idx_healthkit_metrics_user_started",
                                  "idx_healthkit_metrics_user_type_started", "idx_healthkit_metrics_metadata"]
                + (tiered ? ["idx_healthkit_metrics_foldable"] : []),
            "healthkit_daily_summaries": ["healthkit_daily_summaries_pkey", "healthkit_daily_summaries_key",
                                          "idx_healthkit_daily_summaries_user_date"],
            "healthrouter_schema": ["healthrouter_schema_pkey"], "healthrouter_cursor": ["healthrouter_cursor_pkey"],
        ]
        if tiered {
            names["healthkit_summarized_ids"] = ["healthkit_summarized_ids_pkey", "healthkit_summarized_ids_raw_key",
                                                 "healthkit_summarized_ids_day"]
        }
        return names
    }

    /// The primary key's constraint name (PostgreSQL's default for `PRIMARY KEY (id)`).
    static let metricsPrimaryKey = "healthkit_metrics_pkey"

    /// The rows that hold quantities: what the daily view aggregates and tiering folds. Not
    /// category or workout rows (as health4ai's view), nor `record` rows (correlations, activity
    /// summaries, the profile, other records: NULL value, the sample in metadata).
    static let quantityRows = "metric_type NOT LIKE 'HKCategoryType%' AND metric_type NOT LIKE 'HKWorkoutType%' "
        + "AND unit IS DISTINCT FROM '\(PostgresMetricRow.recordUnit)'"

    /// `viewSecurityInvoker`: the daily view reads with the querying user's rights (PostgreSQL
    /// 15+), as row-level security needs; `CREATE OR REPLACE VIEW` resets a view's options, so
    /// every prepare states it. `timeZone` (a zone the server knows): the days of the view's raw
    /// part, as tiering's summaries use them; every prepare replaces the view, so an existing
    /// database gets the current definition.
    func ddl(viewSecurityInvoker: Bool, timeZone: String) -> [String] {
        let day = "(started_at AT TIME ZONE \(SQL.literal(timeZone)))::date"
        return [
            SQL.createSchemaIfMissing(schema),
            "CREATE TABLE IF NOT EXISTS \(name("healthrouter_schema")) (version integer PRIMARY KEY, "
                + "applied_at timestamptz NOT NULL DEFAULT now())",
            "CREATE TABLE IF NOT EXISTS \(name("healthrouter_cursor")) (sink text PRIMARY KEY, journal_seq bigint NOT NULL)",
            metrics.createSQL,
            "CREATE INDEX IF NOT EXISTS idx_healthkit_metrics_user_started ON \(name("healthkit_metrics")) "
                + "(user_id, started_at DESC)",
            "CREATE INDEX IF NOT EXISTS idx_healthkit_metrics_user_type_started ON \(name("healthkit_metrics")) "
                + "(user_id, metric_type, started_at DESC)",
            "CREATE INDEX IF NOT EXISTS idx_healthkit_metrics_metadata ON \(name("healthkit_metrics")) USING gin (metadata)",
            """
            CREATE TABLE IF NOT EXISTS \(name("healthkit_daily_summaries")) (
              id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
              user_id text NOT NULL, metric_type text NOT NULL, summary_date date NOT NULL,
              avg_value double precision, min_value double precision, max_value double precision,
              sum_value double precision, sample_count integer, unit text NOT NULL DEFAULT '',
              created_at timestamptz NOT NULL DEFAULT now(),
              CONSTRAINT healthkit_daily_summaries_key UNIQUE (user_id, metric_type, summary_date, unit))
            """,
            "CREATE INDEX IF NOT EXISTS idx_healthkit_daily_summaries_user_date ON \(name("healthkit_daily_summaries")) "
                + "(user_id, summary_date DESC)",
            """
            CREATE OR REPLACE VIEW \(name("v_healthkit_daily_quantity"))\(viewSecurityInvoker ? " WITH (security_invoker = true)" : "") AS
            SELECT user_id, metric_type, summary_date, avg_value, min_value, max_value, sum_value, sample_count, unit,
                   'summary'::text AS source
            FROM \(name("healthkit_daily_summaries"))
            UNION ALL
            SELECT user_id, metric_type, \(day), avg(value), min(value), max(value),
                   sum(value), count(value)::integer, coalesce(unit, ''), 'raw'::text
            FROM \(name("healthkit_metrics"))
            WHERE \(Self.quantityRows)
            GROUP BY user_id, metric_type, \(day), coalesce(unit, '')
            """,
        ]
    }
}
