import HealthRouterCore
import PostgresClient

/// A first load into an empty store, with `sample_index`'s primary key put off until it ends.
///
/// Inserting a load's random ids one by one into `sample_index`'s B-tree costs about as much
/// again as the rest of `sample_index` (3.5–5.5 s against 1.8 s for 1,000,000 rows in 5,000-row
/// transactions); one sorted build when the load ends takes 1.0 s. The sink drops the key when a
/// batch of at least `minimumBatch` entries, every one a sample the journal holds no earlier entry
/// of (`JournalEntry.isFirstOfId`: an export's fingerprint ids), reaches an empty `sample_index`.
/// Such ids can have no row anywhere yet, so nothing needs the key to find one: their index rows
/// are inserted plainly. Any other batch (a tombstone, a change, a producer's own ids, a
/// re-delivery) builds the key first, in a transaction of its own, and so does `caughtUp()`. The state
/// lives in the catalog (a `sample_index` without a primary key), so a load that was killed
/// carries on as one after the restart, and any writer of the schema finds the key missing.
struct TimescaleDBBulkLoad {
    /// The fewest entries a batch must hold to start a bulk load: a few pushed samples into an
    /// empty store are not worth dropping and rebuilding the key for.
    static let minimumBatch = 1000

    let schema: TimescaleDBSchema

    private var index: String { schema.name("sample_index") }

    /// Whether `sample_index` is without its primary key: a bulk load is under way.
    func isLoading(_ connection: PostgresConnection) throws -> Bool {
        try connection.query("SELECT NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conrelid = $1::regclass AND contype = 'p')",
                             [index]).text(0, 0) == "t"
    }

    /// Whether `sample_index` holds no row: no sample is stored (each stored one has its row).
    func isEmpty(_ connection: PostgresConnection) throws -> Bool {
        try connection.execute("SELECT NOT EXISTS (SELECT 1 FROM \(index))").text(0, 0) == "t"
    }

    /// Locks `sample_index` against other builders and writers (until the caller's transaction
    /// ends; reads go on) and tells whether the key is still missing: two writers that both saw
    /// it missing build it once.
    func lockAndCheck(_ connection: PostgresConnection) throws -> Bool {
        try connection.execute("LOCK TABLE \(index) IN SHARE ROW EXCLUSIVE MODE")
        return try isLoading(connection)
    }

    /// Drops the key, inside the caller's transaction (a rollback brings it back).
    func begin(_ connection: PostgresConnection) throws {
        try connection.execute("ALTER TABLE \(index) DROP CONSTRAINT IF EXISTS sample_index_pkey")
    }

    /// Builds the key with one sort, inside the caller's transaction, without the statement
    /// timeout (a load of years takes its time) and with the configured one restored after. Ids
    /// with two index rows (another writer of the schema moved one during the load) are reported
    /// with what to do, not guessed between.
    func finish(_ connection: PostgresConnection, statementTimeoutSeconds: Int, sinkName: String) throws {
        try connection.execute("SET LOCAL statement_timeout = 0")
        do {
            try connection.execute("SAVEPOINT hr_build")
            try connection.execute("ALTER TABLE \(index) ADD CONSTRAINT sample_index_pkey PRIMARY KEY (id)")
            try connection.execute("RELEASE SAVEPOINT hr_build")
        } catch let error as PostgresError where error.sqlState == "23505" {
            try connection.execute("ROLLBACK TO SAVEPOINT hr_build")
            let shared = try connection.execute("SELECT count(*) FROM (SELECT id FROM \(index) GROUP BY id HAVING count(*) > 1) d")
                .int(0, 0) ?? 0
            throw SinkError.unavailable(
                "timescaledb sink '\(sinkName)': cannot build the primary key of \(index) after a bulk load: \(shared) ids "
                    + "have more than one row there (another writer of schema \(schema.schema) moved samples during the "
                    + "load). For each such id keep the index row whose table holds the sample with the highest "
                    + "journal_seq, and delete the other index rows with the rows they point to (table_name, id, "
                    + "start_at); the sink tries again by itself")
        }
        try connection.execute("SET LOCAL statement_timeout = \(statementTimeoutSeconds * 1000)")
    }
}
