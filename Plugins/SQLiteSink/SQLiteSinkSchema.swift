import HealthRouterCore

/// The SQLite sink's schema (version 1), documented in the plugin README.
///
/// Conventions: instants are `…_at` columns of ISO 8601 UTC text at fixed millisecond width
/// (`2024-01-05T21:07:03.000Z`), each with a `…_utc_offset` column holding the producer's
/// offset in seconds (NULL: unknown); durations are seconds (`…_s`); metadata, attributes and
/// children are JSON text; `journal_seq` is the journal entry that last changed the row.
enum SQLiteSinkSchema {
    /// The version this code writes, stored in `healthrouter_schema`.
    static let version: Int64 = 1

    typealias Column = SQLiteSinkTable.Column

    static let text = "TEXT"
    static let real = "REAL"
    static let integer = "INTEGER"
    static let requiredText = "TEXT NOT NULL"
    static let requiredInteger = "INTEGER NOT NULL"
    static let endNotBeforeStart = "CHECK (end_at >= start_at)"

    static func columns(_ list: [(String, String)]) -> [Column] {
        list.map { Column(name: $0.0, declaration: $0.1) }
    }

    static let idColumn: (String, String) = ("id", "TEXT PRIMARY KEY CHECK (id <> '')")

    /// The id of the two big tables, `samples` and `sleep_stages`: unique through an index of its own
    /// (`<table>_id`, see `bulkIdIndexes`) rather than the primary key, so that the sink can drop the
    /// index (with the time indexes: `bulkLoadIndexes`) while it loads a large history into an empty
    /// table and build it once at the end: one sort instead of a random insert per row into a
    /// B-tree of UUIDs. Stores created before keep
    /// `id TEXT PRIMARY KEY` (same queries, same upserts; they load without dropping anything).
    static let bulkIdColumn: (String, String) = ("id", "TEXT NOT NULL CHECK (id <> '')")

    /// Where the sample came from, and when it was created (every sample table has them).
    static let provenance: [(String, String)] = [
        ("source_name", requiredText), ("source_version", text), ("source_bundle_id", text), ("device", text),
        ("created_at", text), ("time_zone", text),
        ("start_utc_offset", integer), ("end_utc_offset", integer), ("created_utc_offset", integer),
        ("metadata", text), ("user_id", text),
    ]

    static let samples = SQLiteSinkTable(name: "samples", columns: columns([
        bulkIdColumn, ("type", requiredText), ("kind", requiredText),
        ("start_at", requiredText), ("end_at", requiredText),
        ("value", real), ("unit", text), ("category_value", text),
    ] + provenance + [("detail_hash", integer), ("journal_seq", requiredInteger)]),
    constraints: [endNotBeforeStart])

    static let sleepStages = SQLiteSinkTable(name: "sleep_stages", columns: columns([
        bulkIdColumn, ("type", requiredText), ("stage", text),
        ("start_at", requiredText), ("end_at", requiredText),
        ("category_value", text), ("value", real), ("unit", text),
    ] + provenance + [("journal_seq", requiredInteger)]),
    constraints: [endNotBeforeStart])

    static let workouts = SQLiteSinkTable(name: "workouts", columns: columns([
        idColumn, ("type", requiredText), ("activity_type", text),
        ("start_at", requiredText), ("end_at", requiredText), ("duration_s", real),
        ("total_distance_m", real), ("total_energy_burned_kcal", real), ("total_basal_energy_burned_kcal", real),
        ("average_heart_rate", real), ("minimum_heart_rate", real), ("maximum_heart_rate", real),
        ("source_activity_type", text),
    ] + provenance + [("detail_hash", integer), ("journal_seq", requiredInteger)]),
    constraints: [endNotBeforeStart])

    static let workoutEvents = SQLiteSinkTable(name: "workout_events", columns: columns([
        ("workout_id", requiredText), ("activity_id", text), ("ordinal", requiredInteger),
        ("type", requiredText), ("date_at", requiredText), ("duration_s", real), ("metadata", text),
        ("date_utc_offset", integer),
    ]))

    static let workoutStatistics = SQLiteSinkTable(name: "workout_statistics", columns: columns([
        ("workout_id", requiredText), ("activity_id", text), ("ordinal", requiredInteger),
        ("type", requiredText), ("start_at", requiredText), ("end_at", requiredText),
        ("average", real), ("minimum", real), ("maximum", real), ("sum", real), ("unit", text),
        ("start_utc_offset", integer), ("end_utc_offset", integer),
    ]))

    static let workoutActivities = SQLiteSinkTable(name: "workout_activities", columns: columns([
        ("workout_id", requiredText), ("ordinal", requiredInteger), ("id", requiredText),
        ("activity_type", text), ("start_at", requiredText), ("end_at", text), ("duration_s", real),
        ("metadata", text), ("start_utc_offset", integer), ("end_utc_offset", integer),
    ]))

    static let workoutRoutes = SQLiteSinkTable(name: "workout_routes", columns: columns([
        ("workout_id", requiredText), ("ordinal", requiredInteger), ("source_name", text),
        ("start_at", text), ("end_at", text), ("file_path", text), ("metadata", text),
        ("start_utc_offset", integer), ("end_utc_offset", integer),
    ]))

    static let workoutRoutePoints = SQLiteSinkTable(name: "workout_route_points", columns: columns([
        ("workout_id", requiredText), ("route_ordinal", requiredInteger), ("ordinal", requiredInteger),
        ("time_at", requiredText), ("latitude", "REAL NOT NULL"), ("longitude", "REAL NOT NULL"),
        ("altitude", real), ("horizontal_accuracy", real), ("vertical_accuracy", real),
        ("course", real), ("speed", real), ("time_utc_offset", integer),
    ]))

    static let correlations = SQLiteSinkTable(name: "correlations", columns: columns([
        idColumn, ("type", requiredText), ("start_at", requiredText), ("end_at", requiredText),
    ] + provenance + [("detail_hash", integer), ("journal_seq", requiredInteger)]),
    constraints: [endNotBeforeStart])

    static let correlationMembers = SQLiteSinkTable(name: "correlation_members", columns: columns([
        ("correlation_id", requiredText), ("ordinal", requiredInteger), ("member_id", requiredText),
    ]))

    static let heartbeats = SQLiteSinkTable(name: "heartbeats", columns: columns([
        ("sample_id", requiredText), ("ordinal", requiredInteger), ("time_at", requiredText),
        ("bpm", real), ("time_utc_offset", integer),
    ]))

    /// `ActivitySummary` attributes with a typed column, by attribute name.
    static let activitySummaryAttributes: [(attribute: String, column: String, numeric: Bool)] = [
        ("dateComponents", "date", false),
        ("activeEnergyBurned", "active_energy_burned", true),
        ("activeEnergyBurnedGoal", "active_energy_burned_goal", true),
        ("activeEnergyBurnedUnit", "active_energy_burned_unit", false),
        ("appleMoveTime", "apple_move_time", true),
        ("appleMoveTimeGoal", "apple_move_time_goal", true),
        ("appleExerciseTime", "apple_exercise_time", true),
        ("appleExerciseTimeGoal", "apple_exercise_time_goal", true),
        ("appleStandHours", "apple_stand_hours", true),
        ("appleStandHoursGoal", "apple_stand_hours_goal", true),
    ]

    /// `Me` attributes with a typed column, by attribute name.
    static let profileAttributes: [(attribute: String, column: String, numeric: Bool)] = [
        ("HKCharacteristicTypeIdentifierDateOfBirth", "date_of_birth", false),
        ("HKCharacteristicTypeIdentifierBiologicalSex", "biological_sex", false),
        ("HKCharacteristicTypeIdentifierBloodType", "blood_type", false),
        ("HKCharacteristicTypeIdentifierFitzpatrickSkinType", "fitzpatrick_skin_type", false),
        ("HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse", "cardio_fitness_medications_use", false),
    ]

    static let recordColumns: [(String, String)] = [("element", text), ("attributes", text), ("children", text)]

    static let activitySummaries = SQLiteSinkTable(name: "activity_summaries", columns: columns(
        [idColumn]
            + activitySummaryAttributes.map { ($0.column, $0.numeric ? real : text) }
            + [("type", requiredText), ("start_at", requiredText), ("end_at", requiredText)]
            + recordColumns + provenance + [("journal_seq", requiredInteger)]))

    static let profile = SQLiteSinkTable(name: "profile", columns: columns(
        [idColumn]
            + profileAttributes.map { ($0.column, $0.numeric ? real : text) }
            + [("type", requiredText), ("start_at", requiredText), ("end_at", requiredText)]
            + recordColumns + provenance + [("journal_seq", requiredInteger)]))

    static let otherRecords = SQLiteSinkTable(name: "other_records", columns: columns(
        [idColumn, ("type", requiredText), ("start_at", requiredText), ("end_at", requiredText)]
            + recordColumns + [("kind", requiredText)] + provenance + [("journal_seq", requiredInteger)]))

    static let deletedSamples = SQLiteSinkTable(name: "deleted_samples", columns: columns([
        ("id", "TEXT PRIMARY KEY"), ("deleted_at", requiredText), ("user_id", text), ("journal_seq", requiredInteger),
    ]))

    static let sinkCursor = SQLiteSinkTable(name: "sink_cursor", columns: columns([
        ("id", "INTEGER PRIMARY KEY CHECK (id = 1)"), ("journal_seq", requiredInteger),
    ]))

    static let schemaVersion = SQLiteSinkTable(name: "healthrouter_schema", columns: columns([
        ("version", requiredInteger),
    ]))

    /// The tables keyed by sample id, each holding one kind of sample.
    static let sampleTables = [samples, sleepStages, workouts, correlations, activitySummaries, profile, otherRecords]

    /// The tables of rows that belong to a sample (`childrenByParent` names their parents).
    static let childTables = [
        workoutEvents, workoutStatistics, workoutActivities, workoutRoutes, workoutRoutePoints,
        correlationMembers, heartbeats,
    ]

    static let allTables = [schemaVersion] + sampleTables + childTables + [deletedSamples, sinkCursor]

    static let indexes = bulkTimeIndexes.map(\.sql) + [
        "CREATE INDEX IF NOT EXISTS workouts_start ON workouts (start_at)",
        "CREATE INDEX IF NOT EXISTS correlations_type_start ON correlations (type, start_at)",
        "CREATE INDEX IF NOT EXISTS activity_summaries_date ON activity_summaries (date)",
        "CREATE INDEX IF NOT EXISTS other_records_type_start ON other_records (type, start_at)",
        "CREATE INDEX IF NOT EXISTS workout_events_workout ON workout_events (workout_id, ordinal)",
        "CREATE INDEX IF NOT EXISTS workout_statistics_workout ON workout_statistics (workout_id, ordinal)",
        "CREATE INDEX IF NOT EXISTS workout_activities_workout ON workout_activities (workout_id, ordinal)",
        "CREATE INDEX IF NOT EXISTS workout_routes_workout ON workout_routes (workout_id, ordinal)",
        "CREATE INDEX IF NOT EXISTS workout_route_points_workout ON workout_route_points (workout_id, route_ordinal, ordinal)",
        "CREATE INDEX IF NOT EXISTS correlation_members_correlation ON correlation_members (correlation_id, ordinal)",
        "CREATE INDEX IF NOT EXISTS correlation_members_member ON correlation_members (member_id)",
        "CREATE INDEX IF NOT EXISTS heartbeats_sample ON heartbeats (sample_id, ordinal)",
    ]

    /// The tables whose id is unique through a droppable index, with that index's name and SQL.
    static let bulkIdIndexes: [(table: String, index: String, sql: String)] = [samples, sleepStages].map {
        ($0.name, "\($0.name)_id", "CREATE UNIQUE INDEX IF NOT EXISTS \($0.name)_id ON \($0.name) (id)")
    }

    /// The time indexes of those tables: cheaper to fill a row at a time than the id indexes (rows
    /// come roughly in time order, or type by type), but one sort at the end costs less still.
    static let bulkTimeIndexes: [(table: String, index: String, sql: String)] = [
        ("samples", "samples_type_start", "type, start_at"),
        ("samples", "samples_start", "start_at"),
        ("sleep_stages", "sleep_stages_start", "start_at"),
    ].map { table, index, columns in
        (table, index, "CREATE INDEX IF NOT EXISTS \(index) ON \(table) (\(columns))")
    }

    /// What a bulk load into the empty tables drops, and builds with one sort each at its end.
    static let bulkLoadIndexes = bulkIdIndexes + bulkTimeIndexes

    /// Creates the id index of each bulk table that has no unique index on its id: a new store, or
    /// one whose load was cut short. A store created with `id TEXT PRIMARY KEY` already has one.
    static func createIdIndexes(in database: SQLiteDatabase) throws {
        for table in bulkIdIndexes where try !hasPrimaryKeyIndex(table.table, in: database) {
            try database.execute(table.sql)
        }
    }

    /// Whether `table` was created with `id TEXT PRIMARY KEY` (before `bulkIdColumn`).
    static func hasPrimaryKeyIndex(_ table: String, in database: SQLiteDatabase) throws -> Bool {
        try database.scalarInt("SELECT count(*) FROM pragma_index_list('\(table)') WHERE origin = 'pk'") ?? 0 > 0
    }

    /// Child tables by parent table, with the column naming the parent's id.
    static let childrenByParent: [(parent: String, children: [(table: String, column: String)])] = [
        ("samples", [("heartbeats", "sample_id")]),
        ("workouts", [("workout_events", "workout_id"), ("workout_statistics", "workout_id"),
                      ("workout_activities", "workout_id"), ("workout_routes", "workout_id"),
                      ("workout_route_points", "workout_id")]),
        ("correlations", [("correlation_members", "correlation_id")]),
    ]

    /// A deleted parent row takes its child rows with it (a tombstone, or a `DELETE` in `sqlite3`).
    /// Updates are handled by the writer, which replaces the children of a changed row itself:
    /// an update trigger would make every upsert into `samples` pay for a statement journal.
    static var triggers: [String] {
        childrenByParent.map { parent, children in
            let body = children.map { "DELETE FROM \($0.table) WHERE \($0.column) = old.id;" }.joined(separator: " ")
            return "CREATE TRIGGER IF NOT EXISTS \(parent)_delete_children AFTER DELETE ON \(parent) BEGIN \(body) END"
        }
    }

    /// Creates what is missing and checks the stored version. Idempotent.
    static func create(in database: SQLiteDatabase) throws {
        try database.transaction {
            for table in allTables { try database.execute(table.createSQL) }
            for index in indexes { try database.execute(index) }
            try createIdIndexes(in: database)
            for trigger in triggers { try database.execute(trigger) }
            if let stored = try database.scalarInt("SELECT max(version) FROM healthrouter_schema") {
                guard stored <= version else {
                    throw SinkError.misconfigured(
                        "\(database.path) has schema version \(stored), written by a newer healthrouter; "
                            + "this one writes version \(version): upgrade healthrouter or use another file")
                }
            } else {
                try database.execute("INSERT INTO healthrouter_schema (version) VALUES (\(version))")
            }
        }
    }
}
