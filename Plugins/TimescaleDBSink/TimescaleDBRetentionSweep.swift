import Foundation
import HealthRouterCore
import PostgresClient

/// Removes what a dropped chunk leaves behind in the sink's plain tables. TimescaleDB's retention
/// policy (or a `drop_chunks` by hand) drops whole chunks of `samples`, `sleep_stages` and
/// `workouts`, but not their ids' rows in `sample_index` nor the parts of dropped workouts in the
/// `workout_*` tables: without the sweep these grow forever, and the parts of a workout that is
/// gone still show in queries on them.
///
/// A row of a time table can only live in a chunk, so an index row pointing before the earliest
/// chunk of its table (`timescaledb_information.chunks`), or at a table with no chunk at all, is
/// an orphan; the sweep deletes those and the children of the workouts among them, in one
/// statement. It never deletes an index row whose data may still exist: an old chunk that a
/// re-delivery created again after a drop keeps everything from its start on.
///
/// Run by `TimescaleDBSink.caughtUp()` on hypertables only (plain tables drop nothing), at most
/// once every `interval` (retention jobs run daily): the statement reads all of `sample_index`.
struct TimescaleDBRetentionSweep {
    static let interval: TimeInterval = 86_400

    let schema: TimescaleDBSchema

    /// The statement: `$1` is the schema's name. Returns the number of index rows deleted.
    var sql: String {
        let tables = TimescaleDBPolicies.hypertables.map(SQL.literal).joined(separator: ", ")
        let earliest = "earliest AS (SELECT t.name, (SELECT min(c.range_start) FROM timescaledb_information.chunks c "
            + "WHERE c.hypertable_schema = $1 AND c.hypertable_name = t.name) AS start_at "
            + "FROM unnest(ARRAY[\(tables)]) AS t(name))"
        let gone = "gone AS (DELETE FROM \(schema.name("sample_index")) k USING earliest e "
            + "WHERE k.table_name = e.name AND k.start_at < coalesce(e.start_at, 'infinity') RETURNING k.id, k.table_name)"
        let children = TimescaleDBWorkoutChildren(schema: schema.schema)
            .deletions("SELECT id FROM gone WHERE table_name = 'workouts'", prefix: "cd")
        return "WITH \(earliest), \(gone), \(children.joined(separator: ", ")) SELECT count(*) FROM gone"
    }

    /// Deletes the orphans in a transaction of its own; returns how many index rows went.
    func run(on connection: PostgresConnection) throws -> Int64 {
        try connection.transaction {
            try connection.query(sql, [schema.schema]).int(0, 0) ?? 0
        }
    }
}
