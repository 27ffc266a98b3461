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
/// an orphan. The sweep compares each table's earliest chunk with the one it last swept below
/// (`swept_chunks`), which costs a read of the chunk list; only when one changed (a chunk was
/// dropped) does it lock `sample_index` against writers (`EXCLUSIVE`: reads go on), read the
/// earliest chunks again (a writer that recreated an old chunk has committed by then), and delete
/// the orphans and the parts of the workouts among them in one statement with those instants as
/// constants: one pass over `sample_index`. It never deletes an index row whose data may still
/// exist: an old chunk that a re-delivery created again after a drop keeps everything from its
/// start on. With tiered storage (`timescaledb_osm`, Timescale's cloud), whose chunks that view
/// leaves out while their rows stay readable, it does nothing.
struct TimescaleDBRetentionSweep {
    /// What a run did.
    enum Outcome: Equatable {
        /// No chunk was dropped since the last sweep.
        case unchanged
        /// Index rows deleted (with the parts of the workouts among them).
        case swept(Int64)
        /// Not run, and why.
        case skipped(String)
    }

    let schema: TimescaleDBSchema

    /// Each hypertable of the sink with its earliest chunk's start as text (nil: no chunk) and
    /// whether that is what the last sweep recorded.
    private var earliestSQL: String {
        let tables = TimescaleDBPolicies.hypertables.map(SQL.literal).joined(separator: ", ")
        return "SELECT t.name, c.earliest::text, s.table_name IS NOT NULL AND s.earliest_chunk IS NOT DISTINCT FROM c.earliest "
            + "FROM unnest(ARRAY[\(tables)]) AS t(name) "
            + "LEFT JOIN (SELECT hypertable_name, min(range_start) AS earliest FROM timescaledb_information.chunks "
            + "WHERE hypertable_schema = $1 GROUP BY hypertable_name) c ON c.hypertable_name = t.name "
            + "LEFT JOIN \(schema.name("swept_chunks")) s ON s.table_name = t.name ORDER BY t.name"
    }

    /// The DELETE of the orphans below `earliest` (table → start as text, nil: no chunk).
    func deleteSQL(_ earliest: [(table: String, start: String?)]) -> String {
        let below = earliest.map { "(table_name = \(SQL.literal($0.table)) AND start_at < \(SQL.literal($0.start ?? "infinity"))::timestamptz)" }
        let children = TimescaleDBWorkoutChildren(schema: schema.schema)
            .deletions("SELECT id FROM gone WHERE table_name = 'workouts'", prefix: "cd")
        return "WITH gone AS (DELETE FROM \(schema.name("sample_index")) WHERE \(below.joined(separator: " OR ")) "
            + "RETURNING id, table_name), \(children.joined(separator: ", ")) SELECT count(*) FROM gone"
    }

    /// Compares, and sweeps when a chunk was dropped, in a transaction of its own.
    func run(on connection: PostgresConnection) throws -> Outcome {
        let tiered = try connection.execute("SELECT 1 FROM pg_extension WHERE extname = 'timescaledb_osm'")
        if tiered.rowCount > 0 {
            return .skipped("tiered storage (timescaledb_osm) keeps chunks that timescaledb_information.chunks leaves out")
        }
        return try connection.transaction {
            func earliest() throws -> (chunks: [(table: String, start: String?)], unchanged: Bool) {
                let result = try connection.query(earliestSQL, [schema.schema])
                let chunks = (0..<result.rowCount).map { (table: result.text($0, 0) ?? "", start: result.text($0, 1)) }
                return (chunks, (0..<result.rowCount).allSatisfy { result.bool($0, 2) == true })
            }
            guard try !earliest().unchanged else { return .unchanged }
            try connection.execute("LOCK TABLE \(schema.name("sample_index")) IN EXCLUSIVE MODE")
            let chunks = try earliest().chunks
            // One pass over sample_index, then index probes into the workout parts: the join
            // settings of write transactions (`writeSettings`) are for small staged batches.
            try connection.execute("SET LOCAL enable_hashjoin = on; SET LOCAL enable_mergejoin = on")
            let swept = try connection.execute(deleteSQL(chunks)).int(0, 0) ?? 0
            for (table, start) in chunks {
                try connection.query("INSERT INTO \(schema.name("swept_chunks")) (table_name, earliest_chunk) "
                                         + "VALUES ($1, $2::timestamptz) ON CONFLICT (table_name) DO UPDATE SET "
                                         + "earliest_chunk = EXCLUDED.earliest_chunk, swept_at = now()", [table, start])
            }
            return .swept(swept)
        }
    }
}
