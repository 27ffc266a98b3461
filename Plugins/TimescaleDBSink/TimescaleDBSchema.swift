import HealthRouterCore
import PostgresClient

/// The timescaledb sink's tables (all in the configured schema) and the DDL that creates them.
///
/// - `samples`, `sleep_stages`, `workouts`: hypertables partitioned by `start_at` (plain tables
///   when TimescaleDB is absent and not required), primary key `(id, start_at)`.
/// - `sample_index`: a plain table from id to (table, start_at), so a tombstone, which carries
///   only ids, deletes by the full primary key (fast even in compressed chunks). When an id moves
///   (its start or its table changed), the upsert of its index row records where it was
///   (`previous_table`, `previous_start_at`), so the old row is deleted without a second lookup.
/// - `deleted_samples`, `sink_cursor`, `healthrouter_schema` (the schema version), `swept_chunks`
///   (each hypertable's earliest chunk when `TimescaleDBRetentionSweep` last ran).
struct TimescaleDBSchema {
    static let version: Int64 = 1

    let schema: String
    let samples: PostgresUpsertTable
    let sleepStages: PostgresUpsertTable
    let workouts: PostgresUpsertTable

    typealias Column = PostgresUpsertTable.Column

    init(schema: String) {
        self.schema = schema
        func header() -> [Column] {
            // Ids in the C collation: byte order, which makes every index operation on them and the
            // batch's sort several times cheaper than a locale's rules (ids are ASCII anyway).
            // `type` likewise (indexed with start_at); tables created before keep their collation.
            [Column("id", "text COLLATE \"C\" NOT NULL"), .instant("start_at", required: true), .instant("end_at", required: true),
             Column("type", "text COLLATE \"C\" NOT NULL"), Column("user_id", "text"), Column("source_name", "text NOT NULL"),
             Column("source_version", "text"), Column("source_bundle_id", "text"), Column("device", "text"),
             Column("time_zone", "text"), Column("start_utc_offset", "integer"), Column("end_utc_offset", "integer"),
             .instant("created_at", required: false), Column("created_utc_offset", "integer"),
             Column("metadata", "jsonb")]
        }
        let trailer = [Column("canonical", "bytea"), Column("journal_seq", "bigint NOT NULL", compared: false)]
        func table(_ name: String, _ columns: [Column]) -> PostgresUpsertTable {
            PostgresUpsertTable(
                schema: schema, name: name, columns: header() + columns + trailer, key: ["id", "start_at"],
                extraDeclarations: ["written_at timestamptz NOT NULL DEFAULT now()",
                                    "PRIMARY KEY (id, start_at)", "CHECK (end_at >= start_at)"],
                touch: ["written_at = now()"])
        }
        samples = table("samples", [
            Column("kind", "text NOT NULL"), Column("value", "double precision"), Column("unit", "text"),
            Column("category_value", "text"), Column("detail", "jsonb"),
        ])
        sleepStages = table("sleep_stages", [
            Column("stage", "text"), Column("category_value", "text"), Column("value", "double precision"),
            Column("unit", "text"),
        ])
        workouts = table("workouts", [
            Column("activity_type", "text"), Column("duration_s", "double precision"),
            Column("total_distance_m", "double precision"), Column("total_energy_burned_kcal", "double precision"),
            Column("total_basal_energy_burned_kcal", "double precision"),
            Column("average_heart_rate", "double precision"), Column("minimum_heart_rate", "double precision"),
            Column("maximum_heart_rate", "double precision"), Column("detail", "jsonb"),
        ])
    }

    var timeTables: [PostgresUpsertTable] { [samples, sleepStages, workouts] }

    func name(_ table: String) -> String { SQL.qualified(schema, table) }

    /// Plain tables, indexes and bookkeeping: version 1.
    var baseDDL: [String] {
        [
            SQL.createSchemaIfMissing(schema),
            "CREATE TABLE IF NOT EXISTS \(name("healthrouter_schema")) (version integer PRIMARY KEY, "
                + "applied_at timestamptz NOT NULL DEFAULT now())",
        ] + timeTables.map(\.createSQL) + [
            "CREATE INDEX IF NOT EXISTS samples_type_start ON \(name("samples")) (type, start_at DESC)",
            "CREATE INDEX IF NOT EXISTS sleep_stages_start ON \(name("sleep_stages")) (start_at DESC)",
            "CREATE INDEX IF NOT EXISTS workouts_type_start ON \(name("workouts")) (activity_type, start_at DESC)",
            "CREATE TABLE IF NOT EXISTS \(name("sample_index")) (id text COLLATE \"C\" PRIMARY KEY, "
                + "table_name text NOT NULL, start_at timestamptz NOT NULL, previous_table text, previous_start_at timestamptz)",
            "CREATE TABLE IF NOT EXISTS \(name("deleted_samples")) (id text COLLATE \"C\" PRIMARY KEY, user_id text, "
                + "deleted_at timestamptz NOT NULL DEFAULT now(), journal_seq bigint NOT NULL)",
            "CREATE TABLE IF NOT EXISTS \(name("sink_cursor")) (sink text PRIMARY KEY, journal_seq bigint NOT NULL)",
            "CREATE TABLE IF NOT EXISTS \(name("swept_chunks")) (table_name text PRIMARY KEY, earliest_chunk timestamptz, "
                + "swept_at timestamptz NOT NULL DEFAULT now())",
        ] + TimescaleDBWorkoutChildren(schema: schema).ddl
    }

    /// The index names `baseDDL` gives each table (primary keys by PostgreSQL's `<table>_pkey`),
    /// by which `RenamedTables` tells a table renamed from one that was dropped.
    static var indexNames: [String: [String]] {
        var names = ["samples": ["samples_pkey", "samples_type_start"], "sleep_stages": ["sleep_stages_pkey", "sleep_stages_start"],
                     "workouts": ["workouts_pkey", "workouts_type_start"]]
        for table in ["healthrouter_schema", "sample_index", "deleted_samples", "sink_cursor", "swept_chunks"] {
            names[table] = [table + "_pkey"]
        }
        for table in TimescaleDBWorkoutChildren.tables { names[table] = [table + "_workout"] }
        return names
    }

    /// Columns added after version 1 was released, for tables created before them: (table, column, type).
    static let addedColumns = [("sample_index", "previous_table", "text"), ("sample_index", "previous_start_at", "timestamptz")]

    /// Turns the three tables into hypertables (TimescaleDB 2.13+ `by_range`; `if_not_exists` makes
    /// it idempotent; an existing non-empty plain table is migrated in place).
    func hypertableDDL(chunkInterval: ConfigDuration) -> [String] {
        chunkIntervals(chunkInterval).map { table, seconds in
            "SELECT create_hypertable(\(regclass(table)), "
                + "by_range('start_at', INTERVAL '\(Int64(seconds)) seconds'), if_not_exists => true, migrate_data => true)"
        }
    }

    /// Each hypertable's chunk interval in seconds for the configured one: `samples` takes it,
    /// the sparse `sleep_stages` and `workouts` at least a year.
    func chunkIntervals(_ chunkInterval: ConfigDuration) -> [(table: String, seconds: Double)] {
        let sparse = max(chunkInterval.seconds, 365 * 86_400)
        return [("samples", chunkInterval.seconds), ("sleep_stages", sparse), ("workouts", sparse)]
    }

    /// `regclass` text for a table (`"my schema"."samples"`), as TimescaleDB functions take it.
    func regclass(_ table: String) -> String { SQL.literal(name(table)) + "::regclass" }
}
