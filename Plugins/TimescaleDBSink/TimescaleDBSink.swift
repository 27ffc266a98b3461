import Foundation
import HealthRouterCore
import PostgresClient

/// The `timescaledb` sink: hypertables `samples`, `sleep_stages` and `workouts` in a
/// PostgreSQL database with TimescaleDB (plain tables with `require_timescaledb: false`).
///
/// - `prepare()` connects, probes the extension (installed, preloaded, library matching the
///   catalog: any mismatch is reported with its fix), creates or migrates the schema (versioned
///   in `healthrouter_schema`, idempotent, serialized by an advisory lock), brings the chunk
///   intervals, compression, retention and daily aggregates to what the config says
///   (`TimescaleDBPolicies`), and returns the cursor in `sink_cursor`.
/// - `write(_:cursor:)` runs one transaction per batch: consecutive samples are COPYed into a
///   temporary staging table per target and upserted (`INSERT … SELECT DISTINCT ON … ON CONFLICT
///   … DO UPDATE … WHERE … IS DISTINCT FROM …`, so unchanged re-deliveries write nothing),
///   `sample_index` follows, tombstones delete through `sample_index`, and `sink_cursor` is set
///   in the same transaction. A first load into an empty store puts `sample_index`'s key off
///   until it has caught up (`TimescaleDBBulkLoad`).
/// - Data the server refuses (SQLSTATE classes 22, 23, 54) throws `SinkError.rejected`; anything
///   else `SinkError.unavailable` (the worker reconnects with backoff).
public final class TimescaleDBSink: Sink {
    public struct Configuration: Decodable, Sendable {
        public struct Compression: Decodable, Sendable {
            /// Chunks older than this are compressed by TimescaleDB's policy.
            public var after: ConfigDuration
            /// Columns compressed data is segmented by: any of `type`, `user_id`, `source_name` (default `type`).
            public var segmentBy: [String]?
            enum CodingKeys: String, CodingKey, CaseIterable { case after, segmentBy = "segment_by" }

            public init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: CodingKeys.self)
                after = try c.decode(ConfigDuration.self, forKey: .after)
                segmentBy = try c.decodeIfPresent([String].self, forKey: .segmentBy)
                if after.seconds <= 0 {
                    throw DecodingError.dataCorruptedError(forKey: .after, in: c, debugDescription:
                        "must be longer than 0 (chunks older than this are compressed), e.g. 30d")
                }
            }
        }

        public struct Retention: Decodable, Sendable {
            /// Chunks older than this are dropped.
            public var dropAfter: ConfigDuration
            enum CodingKeys: String, CodingKey, CaseIterable { case dropAfter = "drop_after" }

            public init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: CodingKeys.self)
                dropAfter = try c.decodeDeletionAge(forKey: .dropAfter, deletes: "chunks older than this are dropped, with their data")
            }
        }

        /// A libpq URL or conninfo (`postgres://user:${PGPASSWORD}@host/db?sslmode=require`).
        public var url: String
        /// The schema the tables live in (created when missing).
        public var schema: String = "public"
        /// Refuse to run without TimescaleDB (default); false creates plain tables instead.
        public var requireTimescaledb: Bool = true
        /// The chunk interval of `samples` (sparse `sleep_stages` and `workouts` use at least a year).
        public var chunkTimeInterval: ConfigDuration = .days(30)
        public var compression: Compression?
        public var retention: Retention?
        /// A continuous aggregate `samples_daily` (per type, user and UTC day).
        public var dailyAggregates: Bool = false
        /// The user id of samples that carry none.
        public var userId: String?
        public var statementTimeout: ConfigDuration = .minutes(5)

        public init(url: String, schema: String = "public", requireTimescaledb: Bool = true) {
            self.url = url
            self.schema = schema
            self.requireTimescaledb = requireTimescaledb
        }

        enum CodingKeys: String, CodingKey, CaseIterable {
            case url, schema, requireTimescaledb = "require_timescaledb", chunkTimeInterval = "chunk_time_interval"
            case compression, retention, dailyAggregates = "daily_aggregates", userId = "user_id"
            case statementTimeout = "statement_timeout"
        }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            url = try c.decodePostgresURL(forKey: .url)
            schema = try c.decodeSchemaName(forKey: .schema)
            requireTimescaledb = try c.decodeIfPresent(Bool.self, forKey: .requireTimescaledb) ?? true
            chunkTimeInterval = try c.decodeIfPresent(ConfigDuration.self, forKey: .chunkTimeInterval) ?? .days(30)
            compression = try c.decodeIfPresent(Compression.self, forKey: .compression)
            retention = try c.decodeIfPresent(Retention.self, forKey: .retention)
            dailyAggregates = try c.decodeIfPresent(Bool.self, forKey: .dailyAggregates) ?? false
            userId = try c.decodeIfPresent(String.self, forKey: .userId)
            statementTimeout = try c.decodeStatementTimeout(forKey: .statementTimeout)
            if chunkTimeInterval.seconds < 3600 {
                throw DecodingError.dataCorruptedError(forKey: .chunkTimeInterval, in: c,
                                                       debugDescription: "must be at least 1h")
            }
            if let compression, let retention, retention.dropAfter.seconds <= compression.after.seconds {
                throw DecodingError.dataCorruptedError(
                    forKey: .retention, in: c,
                    debugDescription: "drop_after (\(retention.dropAfter)) is not longer than compression.after "
                        + "(\(compression.after)): chunks would be dropped before they are compressed. Swapped?")
            }
            // The aggregate's refresh window stops a day short of drop_after and must span two
            // daily buckets past its hour-old end (`TimescaleDBPolicies.refreshWindowStart`).
            if dailyAggregates, let retention, retention.dropAfter.seconds < 4 * 86_400 {
                throw DecodingError.dataCorruptedError(
                    forKey: .retention, in: c,
                    debugDescription: "drop_after (\(retention.dropAfter)) is shorter than 4d, which daily_aggregates needs: "
                        + "its refresh covers the days retention keeps, and at least two whole days")
            }
            for column in compression?.segmentBy ?? [] where !Self.segmentColumns.contains(column) {
                throw DecodingError.dataCorruptedError(
                    forKey: .compression, in: c,
                    debugDescription: "segment_by: \(column) is not one of \(Self.segmentColumns.joined(separator: ", "))")
            }
        }

        /// Columns compression may segment by.
        public static let segmentColumns = ["type", "user_id", "source_name"]
    }

    public let configuration: Configuration
    let logger: Logger
    /// The sink's name in the config: its row in `sink_cursor`.
    let sinkName: String
    private let schema: TimescaleDBSchema
    /// The connection and the cursor `sink_cursor` holds for this sink.
    let session: PostgresSinkSession
    private var rows: TimescaleDBRowEncoder
    /// Sends `samples` rows to the server while the rest of the batch is encoded (the other tables'
    /// rows wait for `flush`: one COPY at a time holds the connection).
    private var samplesStream: PostgresUpsertStream
    /// Whether the tables are hypertables (TimescaleDB found and usable).
    public private(set) var usesHypertables = false
    /// When `TimescaleDBRetentionSweep` last ran on this instance (uptime seconds; nil: not yet).
    private var lastSweep: Double?
    /// At most one sweep check an hour per instance: the check reads the chunk list.
    static let sweepInterval: Double = 3600
    /// Whether `prepare()` or this instance's last batch found `sample_index` without its key, or
    /// the batch dropped it (`TimescaleDBBulkLoad`): `caughtUp()` then builds it. Each batch reads
    /// the catalog afresh, since another writer of the schema may drop or build the key between
    /// two batches.
    private var loadingInBulk = false
    /// Whether the id columns of the time tables are in the C collation, as the staged ids are
    /// (tables created before the C collation keep their own): only then can an anti-join on
    /// the key use the primary key's index (see `skipsUnchanged`).
    private var idsInCCollation = false
    /// Whether the batch being written inserts its ids' `sample_index` rows plainly (a bulk load).
    private var insertsNewIds = false
    /// Whether the batch being written is likely stored already (entries the stored cursor has
    /// passed, as a backfill re-sends them, or entries from outside the journal): its upserts
    /// leave unchanged rows out first (`PostgresUpsertTable.upsertSQL(skippingUnchanged:)`).
    private var skipsUnchanged = false

    public init(configuration: Configuration, context: PluginContext) {
        self.configuration = configuration
        self.logger = context.logger.with("sink", context.name)
        self.sinkName = context.name
        self.schema = TimescaleDBSchema(schema: configuration.schema)
        self.session = PostgresSinkSession(sinkType: "timescaledb", context: context, url: configuration.url,
                                           statementTimeout: configuration.statementTimeout, schema: configuration.schema,
                                           cursorTable: schema.name("sink_cursor"))
        self.rows = TimescaleDBRowEncoder(defaultUserId: configuration.userId)
        self.samplesStream = PostgresUpsertStream(table: schema.samples)
    }

    /// Whether `prepare()` made the schema's tables (no schema version was recorded: `Sink.createdItsStore`).
    public private(set) var createdItsStore = false

    public func prepare() throws -> Int64? {
        do {
            let connection = try session.connect()
            let database = connection.endpoint
            let probe = try TimescaleDBProbe.run(on: connection)
            if let problem = probe.problem(database: database, required: configuration.requireTimescaledb) {
                // Hypertables made while TimescaleDB was preloaded are no plain tables without it:
                // writes fail with FATAL, and rows in compressed chunks read as missing.
                if let catalog = probe.catalogVersion, !probe.preloaded {
                    let hypertables = try TimescaleDBProbe.hypertables(in: configuration.schema, on: connection)
                    if !hypertables.isEmpty {
                        connection.close()
                        throw SinkError.misconfigured(
                            "tables \(hypertables.map(schema.name).joined(separator: ", ")) are TimescaleDB hypertables, but "
                                + "TimescaleDB \(catalog) is not preloaded in database \(database): writes into them would fail "
                                + "(extension \"timescaledb\" must be preloaded) and rows in compressed chunks would read as "
                                + "missing; add timescaledb to shared_preload_libraries in postgresql.conf and restart "
                                + "PostgreSQL (require_timescaledb: false makes plain tables, it cannot use hypertables)")
                    }
                }
                if configuration.requireTimescaledb {
                    connection.close()
                    throw SinkError.misconfigured(problem)
                }
                logger.info("creating plain tables", [("reason", problem)])
                if configuration.compression != nil || configuration.retention != nil || configuration.dailyAggregates {
                    logger.warning("compression, retention and daily_aggregates are TimescaleDB features: on plain tables "
                                       + "they do nothing (set up TimescaleDB, or remove them)")
                }
            }
            if let pending = probe.pendingUpdate { logger.warning(pending) }
            usesHypertables = probe.isUsable
            try migrate(connection, probe: probe)
            if probe.isUsable, let stalled = TimescaleDBPolicies.stalledJobs(on: connection) { logger.warning(stalled) }
            let cursor = try session.adopt(connection)
            // A load put off by an earlier instance (a build that failed, which the worker tries
            // again on a new instance; a process killed halfway): this one's `caughtUp()` builds it.
            loadingInBulk = try TimescaleDBBulkLoad(schema: schema).isLoading(connection)
            idsInCCollation = try connection.query(
                "SELECT count(*) FROM pg_attribute a JOIN pg_collation c ON c.oid = a.attcollation "
                    + "WHERE a.attrelid = ANY($1::regclass[]) AND a.attname = 'id' AND c.collname = 'C'",
                [SQL.textArray(schema.timeTables.map { $0.qualifiedName })]).int(0, 0) == Int64(schema.timeTables.count)
            logger.debug("connected to \(database)", [("hypertables", String(usesHypertables))],
                         numbers: cursor.map { [("cursor", LogNumber($0))] } ?? [])
            return cursor ?? 0
        } catch {
            throw session.prepareFailure(error) { error, opened in
                TimescaleDBProbe.libraryFailure(error) ?? error.explained(on: opened, tables: tables).sinkError
            }
        }
    }

    /// Opens the tables to be read only (`ReadableSink`): prepared as `prepare()` does when the role
    /// may change the schema, else (a role granted SELECT only, a read-only standby) connected as
    /// they are, nothing created or migrated; a schema a newer healthrouter wrote is refused as
    /// `prepare()` refuses it. Either way a warning says when row-level security hides rows.
    public func prepareForReading() throws {
        try session.prepareForReading(prepare: { _ = try prepare() }, versionTable: schema.name("healthrouter_schema"),
                                      knownVersion: TimescaleDBSchema.version,
                                      tables: ["samples", "sleep_stages", "workouts"].map(schema.name),
                                      sinkError: { TimescaleDBProbe.libraryFailure($0) ?? $0.sinkError })
    }

    /// Creates or migrates the schema: idempotent, serialized against other healthrouter processes.
    private func migrate(_ connection: PostgresConnection, probe: TimescaleDBProbe) throws {
        var forgotten: [String]?
        try connection.transaction {
            try connection.query("SELECT pg_advisory_xact_lock(hashtext($1))", ["healthrouter:" + configuration.schema])
            // Turning a large plain table (from `require_timescaledb: false`) into a hypertable moves
            // its rows (`migrate_data`): that may take longer than the statement timeout, and
            // failing it would fail every start the same way.
            if probe.isUsable { try connection.execute("SET LOCAL statement_timeout = 0") }
            // Before anything else: a table renamed is no table dropped (its rows are there).
            try RenamedTables.check(connection, schema: configuration.schema, indexes: TimescaleDBSchema.indexNames,
                                    sink: "timescaledb sink '\(sinkName)'")
            // Before the DDL, which would create a dropped table anew, empty, under the cursors.
            forgotten = try forgetCursorsOfMissingTables(connection)
            for statement in schema.baseDDL { try connection.execute(statement) }
            try addMissingColumns(connection)
            let stored = try connection.query("SELECT max(version) FROM \(schema.name("healthrouter_schema"))").int(0, 0)
            if let stored, stored > TimescaleDBSchema.version {
                throw SinkError.misconfigured(
                    "schema \(configuration.schema) has healthrouter schema version \(stored), written by a newer "
                        + "healthrouter; this one writes version \(TimescaleDBSchema.version): upgrade healthrouter")
            }
            if probe.isUsable {
                for statement in schema.hypertableDDL(chunkInterval: configuration.chunkTimeInterval) {
                    try connection.execute(statement)
                }
                try TimescaleDBPolicies(configuration: configuration, schema: schema, logger: logger, connection: connection)
                    .apply(probe: probe)
            }
            createdItsStore = stored == nil || forgotten != nil
            if stored == nil {
                try connection.execute("INSERT INTO \(schema.name("healthrouter_schema")) (version) VALUES "
                                           + "(\(TimescaleDBSchema.version)) ON CONFLICT DO NOTHING")
            }
        }
        if let forgotten {
            logger.warning(MissingDataTables.warning(schema: configuration.schema, cursorTable: "sink_cursor", missing: forgotten))
        }
    }

    /// When a time table (`samples`, `sleep_stages`, `workouts`) is gone (dropped or renamed)
    /// while `sink_cursor` holds cursors, the DDL would create it anew, empty, and every sink would
    /// carry on from its cursor past the rows it no longer holds, with `sample_index` pointing at
    /// them. Instead the cursors are deleted (every sink of the schema wrote into the table), with
    /// the `sample_index` rows of the missing tables (the rows of the tables still there keep
    /// theirs) and, when `workouts` is gone, every workout part (they are its rows'), so the store
    /// is taken as new and the journal is delivered again. Returns the tables missing (nil when none,
    /// or no cursor).
    private func forgetCursorsOfMissingTables(_ connection: PostgresConnection) throws -> [String]? {
        let qualify = { (table: String) in self.schema.name(table) }
        func exists(_ table: String) throws -> Bool { try MissingDataTables.exists(table, connection, qualify) }
        guard let missing = try MissingDataTables.forgetCursors(connection, cursorTable: "sink_cursor",
                                                                tables: schema.timeTables.map(\.name), qualify: qualify) else {
            return nil
        }
        if try exists("sample_index") {
            try connection.query("DELETE FROM \(schema.name("sample_index")) WHERE table_name = ANY($1::text[])",
                                 [SQL.textArray(missing)])
        }
        if missing.contains("workouts") {
            for table in TimescaleDBWorkoutChildren.tables {
                if try exists(table) { try connection.execute("DELETE FROM \(schema.name(table))") }
            }
        }
        return missing
    }

    /// Adds `TimescaleDBSchema.addedColumns` a table created by an older healthrouter lacks (only
    /// then: `ALTER TABLE` locks the table even when the column exists).
    private func addMissingColumns(_ connection: PostgresConnection) throws {
        for (table, column, type) in TimescaleDBSchema.addedColumns {
            let present = try connection.query(
                "SELECT 1 FROM pg_attribute WHERE attrelid = $1::regclass AND attname = $2 AND NOT attisdropped",
                [schema.name(table), column])
            if present.rowCount == 0 {
                try connection.execute("ALTER TABLE \(schema.name(table)) ADD COLUMN IF NOT EXISTS \(SQL.identifier(column)) \(type)")
            }
        }
    }

    /// The settings of a batch's transaction, `SET LOCAL` at its start: through a transaction
    /// pooler (Supabase's port 6543, pgbouncer's `pool_mode = transaction`) each transaction may
    /// run on another server connection, where settings made once for the session are not in force.
    /// - `statement_timeout`: the connection sets it for the session too; a write stuck behind a
    ///   lock is cut through a pooler as well.
    /// - No hash or merge joins: the staged batch is small and has no statistics, so joins with it
    ///   should probe indexes.
    /// - With TimescaleDB, no limit on decompressed tuples: an upsert or delete that reaches
    ///   compressed chunks decompresses whole batches of rows, and TimescaleDB fails a transaction
    ///   past 100,000 such tuples (SQLSTATE 53400), so a re-delivery over compressed history would
    ///   fail the same way at every retry.
    var writeSettings: String {
        "SET LOCAL statement_timeout = \(Int(configuration.statementTimeout.seconds) * 1000); "
            + "SET LOCAL enable_hashjoin = off; SET LOCAL enable_mergejoin = off"
            + (usesHypertables ? "; SET LOCAL timescaledb.max_tuples_decompressed_per_dml_transaction = 0" : "")
    }

    public func write(_ entries: [JournalEntry], cursor: Int64) throws {
        let connection = try session.connectionForWrite(reconnect: reconnect)
        do {
            let storedCursor = session.storedCursor
            let superseded = entries.supersededSamplePositions()
            let allNew = entries.first.map { $0.sequence > storedCursor && cursor > storedCursor && entries.areAllFirstOfTheirId }
                ?? false
            // An empty batch (its entries routed elsewhere, or parked) moves the cursor only.
            if !entries.isEmpty {
                loadingInBulk = try TimescaleDBBulkLoad(schema: schema).isLoading(connection)
                // In a transaction of its own: a batch the server then refuses, which the worker
                // splits and tries again piece by piece, must not build the key with every piece.
                if loadingInBulk, !allNew { try connection.transaction { try finishBulkLoad(connection) } }
            }
            try session.writeBatch(cursor: cursor, on: connection) {
                try connection.execute(writeSettings)
                insertsNewIds = try planBulkLoad(entries, allNew: allNew, on: connection)
                skipsUnchanged = idsInCCollation
                    && (entries.first.map { !$0.isFromJournal || $0.sequence <= storedCursor } ?? false)
                rows.reset()
                samplesStream.reset()
                for (position, entry) in entries.enumerated() {
                    switch entry.item {
                    case .sample(let sample):
                        // A later entry of the batch brings this id again (at another start, or in
                        // another table): its upsert is the one that counts, and two rows of one id
                        // in one statement would make `sample_index`'s upsert touch a row twice.
                        if superseded.contains(position) { continue }
                        rows.append(sample, sequence: entry.sequence)
                        try samplesStream.sendIfFull(&rows.samples, on: connection)
                    case .tombstone(let tombstone):
                        try flush(connection)
                        try delete(tombstone, sequence: entry.sequence, connection)
                    }
                }
                try flush(connection)
            }
        } catch {
            throw sinkError(error)
        }
    }

    /// A failure as the worker needs it: the server's errors sorted into data and store faults,
    /// a refused privilege or a read-only session explained by the session (`PostgresError.explained`).
    private func sinkError(_ error: any Error) -> any Error {
        (error as? PostgresError)?.explained(on: session.connection, tables: tables).writeError ?? error
    }

    /// The sink's tables, qualified: where a refused privilege is looked for.
    private var tables: [String] { TimescaleDBSchema.indexNames.keys.sorted().map(schema.name) }

    /// Whether `entries` insert their `sample_index` rows plainly: yes when `allNew` (every one is
    /// a sample new to the store, past the stored cursor, and the first of its id) and
    /// `sample_index` is either without its key already or empty (then the key is dropped here,
    /// for a batch of `TimescaleDBBulkLoad.minimumBatch` entries or more). A batch not `allNew`
    /// finds the key built (`write` builds a missing one first).
    private func planBulkLoad(_ entries: [JournalEntry], allNew: Bool, on connection: PostgresConnection) throws -> Bool {
        guard allNew else { return false }
        if loadingInBulk { return true }
        let bulk = TimescaleDBBulkLoad(schema: schema)
        guard entries.count >= TimescaleDBBulkLoad.minimumBatch, try bulk.isEmpty(connection) else { return false }
        try bulk.begin(connection)
        loadingInBulk = true
        logger.debug("loading into an empty store: sample_index's key is built when the load has caught up")
        return true
    }

    /// Gathers the planner's statistics of the tables a first load filled, which autovacuum would
    /// gather a minute or so later: until then a dashboard's join (a correlation's members) is
    /// planned as for empty tables (a review measured 186 ms before, 13 ms after, on 300,000 samples). A
    /// failure is logged, not thrown: the data is written.
    private func analyzeAfterLoad(_ connection: PostgresConnection) {
        let tables = schema.timeTables.map(\.qualifiedName) + [schema.name("sample_index")]
        do {
            _ = try connection.execute("ANALYZE " + tables.joined(separator: ", "))
        } catch {
            logger.warning("could not gather the statistics of the loaded tables (autovacuum will): \(error)")
        }
    }

    /// Builds `sample_index`'s key, inside the caller's transaction, unless another writer of the
    /// schema (another instance, another sink) has built it since this one looked.
    private func finishBulkLoad(_ connection: PostgresConnection) throws {
        let started = DispatchTime.now().uptimeNanoseconds
        let bulk = TimescaleDBBulkLoad(schema: schema)
        guard try bulk.lockAndCheck(connection) else {
            loadingInBulk = false
            return
        }
        try bulk.finish(connection, statementTimeoutSeconds: Int(configuration.statementTimeout.seconds), sinkName: sinkName)
        loadingInBulk = false
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        logger.debug("built sample_index's key the load put off", numbers: [("seconds", LogNumber(seconds, places: 1))])
    }

    /// Upserts the staged rows of each table and records where each id lives.
    private func flush(_ connection: PostgresConnection) throws {
        guard !rows.isEmpty || samplesStream.isCopying else { return }
        let samples = schema.samples
        try samplesStream.finish(&rows.samples, on: connection, returning: ["id", "start_at"], skippingUnchanged: skipsUnchanged) {
            try self.locate(samples, upsert: $0, on: connection)
        }
        for (table, data) in [(schema.sleepStages, rows.sleepStages), (schema.workouts, rows.workouts)] where !data.isEmpty {
            let returning = table.name == "workouts" ? ["id", "start_at", "detail"] : ["id", "start_at"]
            try table.write(data, on: connection, returning: returning, skippingUnchanged: skipsUnchanged) {
                try self.locate(table, upsert: $0, on: connection)
            }
        }
        rows.reset()
    }

    /// Runs `upsert` (which returns the ids and starts it inserted or changed) so that
    /// `sample_index` follows it. Most batches only add ids the sink has never stored (a first
    /// load, new data) or change nothing (a re-delivery): for those a plain INSERT of the rows
    /// `upsert` returns keeps `sample_index` right, at about half the server's work of its
    /// upsert. When `upsert` changed or moved an id `sample_index` already holds, that INSERT
    /// fails on `sample_index`'s key: it is rolled back to a savepoint (the staged rows stay) and
    /// the batch runs again through `relocate`, which moves the id.
    private func locate(_ table: PostgresUpsertTable, upsert: String, on connection: PostgresConnection) throws -> Int {
        // A bulk load's ids are new everywhere, and sample_index has no key to fail on (unless
        // another writer built it since this batch looked: then the batch is tried again).
        if insertsNewIds {
            do {
                return Int(try connection.execute(insertNew(table, upsert: upsert)).int(0, 0) ?? 0)
            } catch let error as PostgresError where error.sqlState == "23505" && error.constraint == "sample_index_pkey" {
                throw SinkError.unavailable("another writer built sample_index's key during this batch (\(error)); trying again")
            }
        }
        try connection.execute("SAVEPOINT hr_locate")
        let written: Int
        do {
            written = Int(try connection.execute(insertNew(table, upsert: upsert)).int(0, 0) ?? 0)
        } catch let error as PostgresError where error.sqlState == "23505" && error.constraint == "sample_index_pkey" {
            try connection.execute("ROLLBACK TO SAVEPOINT hr_locate")
            let result = try connection.execute(relocate(table, upsert: upsert))
            written = Int(result.int(0, 0) ?? 0)
            try TimescaleDBKeyedDeletes(schema: schema).run(TimescaleDBKeyedDeletes.locations(in: result, first: 1),
                                                            on: connection)
        }
        try connection.execute("RELEASE SAVEPOINT hr_locate")
        return written
    }

    /// One statement around `upsert` for a batch of ids `sample_index` does not hold yet: their
    /// index rows are inserted, and the children of the workouts among them written.
    private func insertNew(_ table: PostgresUpsertTable, upsert: String) -> String {
        var work = ["located AS (INSERT INTO \(schema.name("sample_index")) (id, table_name, start_at) "
                        + "SELECT id, \(SQL.literal(table.name)), start_at FROM up)"]
        if table.name == "workouts" {
            let children = TimescaleDBWorkoutChildren(schema: configuration.schema)
            work += children.deletions("SELECT id FROM up", prefix: "cd") + children.insertions(from: "up")
        }
        return "WITH up AS (\(upsert)), \(work.joined(separator: ", ")) SELECT count(*) FROM up"
    }

    /// One statement around `upsert` for any batch (see `locate`):
    /// `sample_index` points at the new rows, and the statement returns, beside the count of rows
    /// written, where each id that moved lived before (another table or start: the index row's
    /// previous location, which its upsert records), for `TimescaleDBKeyedDeletes` to delete by
    /// constants. One index lookup per row: the upsert's conflict check finds the previous
    /// location too. An unchanged re-delivery returns nothing, so touches nothing.
    private func relocate(_ table: PostgresUpsertTable, upsert: String) -> String {
        let here = SQL.literal(table.name)
        let index = "located AS (INSERT INTO \(schema.name("sample_index")) AS k (id, table_name, start_at) "
            + "SELECT id, \(here), start_at FROM up ON CONFLICT (id) DO UPDATE SET table_name = EXCLUDED.table_name, "
            + "start_at = EXCLUDED.start_at, previous_table = k.table_name, previous_start_at = k.start_at "
            + "WHERE (k.table_name, k.start_at) IS DISTINCT FROM (EXCLUDED.table_name, EXCLUDED.start_at) "
            + "RETURNING k.id, k.previous_table, k.previous_start_at)"
        // Rows the upsert inserted carry no previous location; rows it moved carry the one it replaced.
        let moved = "moved AS (SELECT id, previous_table AS table_name, previous_start_at AS start_at FROM located "
            + "WHERE previous_table IS NOT NULL)"
        // Children of workouts that moved away, or that this upsert rewrote, go; a rewritten workout's come anew.
        let children = TimescaleDBWorkoutChildren(schema: configuration.schema)
        var childWork = children.deletions(
            "SELECT id FROM moved WHERE table_name = 'workouts'" + (table.name == "workouts" ? " UNION SELECT id FROM up" : ""),
            prefix: "cd")
        if table.name == "workouts" { childWork += children.insertions(from: "up") }
        return "WITH up AS (\(upsert)), \(index), \(moved), \(childWork.joined(separator: ", ")) "
            + "SELECT (SELECT count(*) FROM up), m.id, m.table_name, m.start_at::text FROM (VALUES (1)) AS one(x) "
            + "LEFT JOIN moved m ON true"
    }

    /// Deletes the tombstone's ids by their full key, which `sample_index` gives (see
    /// `TimescaleDBKeyedDeletes`), with the children of workouts among them, and records them.
    private func delete(_ tombstone: Tombstone, sequence: Int64, _ connection: PostgresConnection) throws {
        guard !tombstone.ids.isEmpty else { return }
        let children = TimescaleDBWorkoutChildren(schema: configuration.schema)
            .deletions("SELECT id FROM gone WHERE table_name = 'workouts'", prefix: "cd").joined(separator: ", ")
        let sql = "WITH gone AS (DELETE FROM \(schema.name("sample_index")) WHERE id = ANY($1::text[]) "
            + "RETURNING id, table_name, start_at), \(children), "
            + "recorded AS (INSERT INTO \(schema.name("deleted_samples")) AS d (id, user_id, journal_seq) "
            + "SELECT DISTINCT unnest($1::text[]), $2, $3::bigint "
            + "ON CONFLICT (id) DO UPDATE SET user_id = EXCLUDED.user_id, journal_seq = EXCLUDED.journal_seq "
            + "WHERE EXCLUDED.journal_seq > d.journal_seq) "
            + "SELECT id, table_name, start_at::text FROM gone"
        let gone = try connection.query(sql, [SQL.textArray(tombstone.ids), tombstone.userId ?? configuration.userId,
                                              String(sequence)])
        try TimescaleDBKeyedDeletes(schema: schema).run(TimescaleDBKeyedDeletes.locations(in: gone, first: 0),
                                                        on: connection)
    }

    /// Caught up: builds the `sample_index` key a bulk load put off (a failure throws: the worker
    /// tries again). Then, on hypertables, at most once every `sweepInterval`, runs
    /// `TimescaleDBRetentionSweep`, which removes the `sample_index` rows and workout parts of rows
    /// whose chunks were dropped (a read of the chunk list when none was). A sweep's failure is
    /// logged, not thrown: it is housekeeping, and the next check an hour later tries again.
    public func caughtUp() throws {
        guard let connection = session.connection else { return }
        do {
            if loadingInBulk {
                try connection.transaction { try finishBulkLoad(connection) }
                analyzeAfterLoad(connection)
            }
        } catch {
            throw sinkError(error)
        }
        guard usesHypertables else { return }
        let now = Double(DispatchTime.now().uptimeNanoseconds) / 1e9
        if let lastSweep, now - lastSweep < Self.sweepInterval { return }
        let first = lastSweep == nil
        lastSweep = now
        do {
            switch try TimescaleDBRetentionSweep(schema: schema).run(on: connection) {
            case .unchanged: break
            case .swept(let count):
                logger.info("removed \(count) sample_index rows, with their workout parts, of rows in dropped chunks")
            case .skipped(let reason):
                if first { logger.info("rows of dropped chunks are not swept from sample_index: \(reason)") }
            }
        } catch {
            logger.warning("could not remove the sample_index rows of dropped chunks (tried again in an hour): \(error)")
        }
    }

    /// A new connection, prepared as at the start (`Sink.reconnect()`): for reading only when the
    /// sink was opened so (`migrate --from` reading again after its connection was lost).
    public func reconnect() throws {
        try session.reconnect(prepare: { _ = try prepare() }, prepareForReading: prepareForReading)
    }

    public func close() {
        // A load put off is not finished here: the worker closes a sink after a failed write too,
        // and the next instance carries the load on (its batches, or its caughtUp(), build the key).
        session.close()
    }
}
