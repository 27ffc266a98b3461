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
    /// with what to do, not guessed between. The build's lock (ACCESS EXCLUSIVE) is waited for no
    /// longer than the statement timeout (`lock_timeout`): a session holding a lock on
    /// `sample_index` (a reader's open transaction, a dump) would otherwise keep the sink waiting
    /// without a word, for ever. Then it throws `unavailable` naming those sessions: the rows are
    /// written, and the worker tries the build again.
    func finish(_ connection: PostgresConnection, statementTimeoutSeconds: Int, sinkName: String) throws {
        try connection.execute("SET LOCAL statement_timeout = 0")
        try connection.execute("SET LOCAL lock_timeout = \(statementTimeoutSeconds * 1000)")
        do {
            try connection.execute("SAVEPOINT hr_build")
            try connection.execute("ALTER TABLE \(index) ADD CONSTRAINT sample_index_pkey PRIMARY KEY (id)")
            try connection.execute("RELEASE SAVEPOINT hr_build")
        } catch let error as PostgresError where error.sqlState == "55P03" {
            try connection.execute("ROLLBACK TO SAVEPOINT hr_build")
            throw SinkError.unavailable(
                "timescaledb sink '\(sinkName)': cannot build the primary key of \(index) that the first load put off: it "
                    + "waited \(statementTimeoutSeconds) s (statement_timeout) for its lock, and \(try lockHolders(connection)). "
                    + "The rows are written; the sink tries again by itself (let that session finish, or end it with SELECT "
                    + "pg_terminate_backend(pid))")
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
        try connection.execute("SET LOCAL lock_timeout = DEFAULT")
    }

    /// The other sessions holding a lock on `sample_index`, as the build's message names them:
    /// `session pid 4242 (role grafana, idle in transaction for 95 s: SELECT …) holds ACCESS SHARE
    /// on it` (the statement shows as `<insufficient privilege>` to a role that may not see it).
    private func lockHolders(_ connection: PostgresConnection) throws -> String {
        let holders = try connection.query("""
            SELECT a.pid, a.usename::text, coalesce(a.state, 'unknown'),
                   extract(epoch FROM now() - coalesce(a.xact_start, a.query_start))::bigint,
                   left(regexp_replace(coalesce(a.query, ''), '\\s+', ' ', 'g'), 80),
                   string_agg(DISTINCT upper(regexp_replace(replace(l.mode, 'Lock', ''), '([a-z])([A-Z])', '\\1 \\2', 'g')), ', ')
            FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
            WHERE l.locktype = 'relation' AND l.relation = $1::regclass AND l.granted AND l.pid <> pg_backend_pid()
            GROUP BY 1, 2, 3, 4, 5 ORDER BY 1
            """, [index])
        let named = (0..<holders.rowCount).map { row in
            "session pid \(holders.int(row, 0) ?? 0) (role \(holders.text(row, 1) ?? "?"), \(holders.text(row, 2) ?? "?") for "
                + "\(holders.int(row, 3) ?? 0) s: \(holders.text(row, 4) ?? "")) holds \(holders.text(row, 5) ?? "a lock")"
        }
        return named.isEmpty ? "the session that held it has ended since" : named.joined(separator: "; ") + " on it"
    }
}
