import HealthRouterCore
import PostgresClient

/// Brings what the config declares about TimescaleDB onto the sink's hypertables, at every start:
/// the chunk intervals, compression with its policy, the retention policy and the daily aggregate.
///
/// The config is the truth for the policies of the sink's own tables: a policy whose interval
/// changed is replaced (TimescaleDB's `if_not_exists` keeps an existing policy with other
/// arguments, with only a warning), and a policy whose option left the config is removed, so that
/// raising `drop_after`, or removing `retention`, stops dropping data. A changed chunk interval
/// applies to chunks created from then on (`set_chunk_time_interval`). Compression settings
/// (`segment_by`) are set once, when compression is turned on; a later difference is logged as
/// a warning with the statements that change them. The aggregate is never dropped (it holds what it materialized).
///
/// Called by `TimescaleDBSink.prepare` inside the schema transaction, only when TimescaleDB is
/// usable (installed and preloaded).
struct TimescaleDBPolicies {
    /// A policy kind, by the names TimescaleDB gives its job and functions.
    struct Kind {
        var option: String
        var procName: String
        var argument: String
        var add: String
        var remove: String

        static let compression = Kind(option: "compression.after", procName: "policy_compression",
                                      argument: "compress_after", add: "add_compression_policy",
                                      remove: "remove_compression_policy")
        static let retention = Kind(option: "retention.drop_after", procName: "policy_retention",
                                    argument: "drop_after", add: "add_retention_policy", remove: "remove_retention_policy")
    }

    let configuration: TimescaleDBSink.Configuration
    let schema: TimescaleDBSchema
    let logger: Logger
    let connection: PostgresConnection

    static let hypertables = ["samples", "sleep_stages", "workouts"]

    func apply(probe: TimescaleDBProbe) throws {
        try applyChunkIntervals()
        let wanted = configuration.compression != nil || configuration.retention != nil || configuration.dailyAggregates
        guard probe.hasCommunityFeatures else {
            guard !wanted else {
                throw SinkError.misconfigured("compression, retention and daily_aggregates need TimescaleDB's community "
                                                + "license; this server runs license \(probe.license ?? "?"): remove them")
            }
            return
        }
        for table in Self.hypertables {
            if let compression = configuration.compression { try enableCompression(table, segmentBy: compression.segmentBy) }
            try applyPolicy(.compression, table: table, interval: configuration.compression?.after)
            try applyPolicy(.retention, table: table, interval: configuration.retention?.dropAfter)
        }
        if let compression = configuration.compression,
           let kept = try Self.keptCompressionSettings(on: connection, schema: schema, segmentBy: compression.segmentBy,
                                                       catalogVersion: probe.catalogVersion ?? "?") {
            logger.warning(kept)
        }
        if configuration.dailyAggregates { try createDailyAggregate() }
    }

    /// Sets the chunk interval of each hypertable whose dimension has another one.
    private func applyChunkIntervals() throws {
        for (table, seconds) in schema.chunkIntervals(configuration.chunkTimeInterval) {
            let same = try connection.query(
                "SELECT time_interval = $3::interval FROM timescaledb_information.dimensions "
                    + "WHERE hypertable_schema = $1 AND hypertable_name = $2 AND column_name = 'start_at'",
                [configuration.schema, table, "\(Int64(seconds)) seconds"]).bool(0, 0)
            guard same == false else { continue }
            try connection.execute("SELECT set_chunk_time_interval(\(schema.regclass(table)), INTERVAL '\(Int64(seconds)) seconds')")
            logger.info("chunk interval of \(schema.name(table)) set to \(ConfigDuration(seconds: seconds)) (chunks created from now on)")
        }
    }

    /// The compression orderby the sink sets: newest first, as its reads go.
    static let compressOrderBy = "start_at DESC"

    /// The compression segmentby the config asks (`type` by default), as `ALTER TABLE … SET` takes it.
    static func segments(_ segmentBy: [String]?) -> String { (segmentBy ?? ["type"]).joined(separator: ", ") }

    /// Turns compression on, once: a hypertable with compression on keeps its settings (the sink
    /// does not change them; `keptCompressionSettings` tells when they differ from the config).
    private func enableCompression(_ table: String, segmentBy: [String]?) throws {
        let enabled = try connection.query(
            "SELECT compression_enabled FROM timescaledb_information.hypertables "
                + "WHERE hypertable_schema = $1 AND hypertable_name = $2", [configuration.schema, table]).bool(0, 0)
        guard enabled != true else { return }
        try connection.execute("ALTER TABLE \(schema.name(table)) SET (timescaledb.compress, "
                                   + "timescaledb.compress_segmentby = \(SQL.literal(Self.segments(segmentBy))), "
                                   + "timescaledb.compress_orderby = \(SQL.literal(Self.compressOrderBy)))")
    }

    /// `table`'s compression settings as TimescaleDB lists them, one row a column (2.13–2.28:
    /// `attname`, `segmentby_column_index`, `orderby_column_index`, `orderby_asc`,
    /// `orderby_nullsfirst`), written as `ALTER TABLE … SET` takes them; nil without that view or settings.
    static func compressionSettings(_ table: String, in schema: TimescaleDBSchema,
                                    on connection: PostgresConnection) throws -> (segmentBy: String, orderBy: String)? {
        guard try connection.query("SELECT to_regclass('timescaledb_information.compression_settings') IS NOT NULL")
            .bool(0, 0) == true else { return nil }
        let found = try connection.query(
            "SELECT coalesce(string_agg(attname::text, ', ' ORDER BY segmentby_column_index) "
                + "FILTER (WHERE segmentby_column_index IS NOT NULL), ''), "
                + "coalesce(string_agg(attname::text || CASE WHEN orderby_asc THEN '' ELSE ' DESC' END "
                + "|| CASE WHEN orderby_nullsfirst = orderby_asc THEN CASE WHEN orderby_nullsfirst THEN ' NULLS FIRST' "
                + "ELSE ' NULLS LAST' END ELSE '' END, ', ' ORDER BY orderby_column_index) "
                + "FILTER (WHERE orderby_column_index IS NOT NULL), '') "
                + "FROM timescaledb_information.compression_settings WHERE hypertable_schema = $1 AND hypertable_name = $2 "
                + "HAVING count(*) > 0", [schema.schema, table])
        guard found.rowCount > 0 else { return nil }
        return (found.text(0, 0) ?? "", found.text(0, 1) ?? "")
    }

    /// A warning naming each of the sink's hypertables whose compression settings
    /// (`compressionSettings`) differ from the config's `segment_by` (or the sink's orderby), with
    /// what it has, what the config asks and the statements that change them; nil when none does
    /// (or TimescaleDB lists no settings). The sink sets them only when it turns compression on, so a
    /// `segment_by` edited later would otherwise be ignored without a word. Since 2.14 the settings
    /// may change while chunks are compressed: they apply to chunks compressed from then on, and a
    /// compressed chunk keeps its own until decompressed (the compression policy compresses it
    /// again). Before 2.14 TimescaleDB refuses the change while any chunk is compressed ("cannot
    /// change configuration on already compressed chunks"): every chunk must be decompressed first.
    static func keptCompressionSettings(on connection: PostgresConnection, schema: TimescaleDBSchema, segmentBy: [String]?,
                                        catalogVersion: String) throws -> String? {
        let segments = Self.segments(segmentBy)
        let changeable = TimescaleDBProbe.atLeast(catalogVersion, [2, 14])
        var kept: [String] = []
        for table in hypertables {
            guard let (segmentedBy, orderedBy) = try compressionSettings(table, in: schema, on: connection),
                  segmentedBy != segments || orderedBy != compressOrderBy else { continue }
            let name = schema.name(table)
            let decompress = "SELECT decompress_chunk(c, if_compressed => true) FROM show_chunks(\(SQL.literal(name))) c;"
            kept.append("\(name) segments by '\(segmentedBy)' and orders by '\(orderedBy)' where the config asks segment_by "
                            + "'\(segments)' and orderby '\(compressOrderBy)': " + (changeable ? "" : decompress + " then ")
                            + "ALTER TABLE \(name) SET (timescaledb.compress_segmentby = \(SQL.literal(segments)), "
                            + "timescaledb.compress_orderby = \(SQL.literal(compressOrderBy)));"
                            + (changeable ? " (chunks compressed already keep the old settings until decompressed: "
                                + decompress + " then the compression policy compresses them anew)." : ""))
        }
        guard !kept.isEmpty else { return nil }
        return "compression settings differ from the config and are kept (the sink sets them only when it turns "
            + "compression on): " + kept.joined(separator: " ")
            + (changeable ? "" : " (TimescaleDB \(catalogVersion) refuses new settings while any chunk is compressed; "
                + "2.14 and later take them at once, for chunks compressed from then on.)")
    }

    /// Makes `table`'s policy of `kind` have `interval`, or not exist when `interval` is nil.
    private func applyPolicy(_ kind: Kind, table: String, interval: ConfigDuration?) throws {
        let wanted = interval.map { "\(Int64($0.seconds)) seconds" }
        let existing = try connection.query(
            "SELECT (config->>$3)::interval = $4::interval FROM timescaledb_information.jobs "
                + "WHERE proc_name = $5 AND hypertable_schema = $1 AND hypertable_name = $2",
            [configuration.schema, table, kind.argument, wanted, kind.procName])
        let regclass = schema.regclass(table)
        if existing.rowCount > 0 {
            if existing.bool(0, 0) == true { return }
            try connection.execute("SELECT \(kind.remove)(\(regclass), if_exists => true)")
            if interval == nil {
                logger.warning("removed the \(kind.procName) job of \(schema.name(table)): \(kind.option) is no longer in the config")
                return
            }
        }
        guard let interval, let wanted else { return }
        try connection.execute("SELECT \(kind.add)(\(regclass), \(kind.argument) => INTERVAL '\(wanted)', if_not_exists => true)")
        if existing.rowCount > 0 {
            logger.info("\(kind.procName) job of \(schema.name(table)) now runs with \(kind.option) \(interval)")
        }
    }

    /// The continuous aggregate `samples_daily` and its refresh policy (both idempotent). With
    /// real-time aggregation the view shows materialized buckets before its watermark and raw rows
    /// after it, so the policy's window must reach back over all the rows there are: a window of the
    /// last 30 days would move the watermark past an imported history it never materialized and
    /// hide every older day. Without `retention` the window starts at the first row
    /// (`start_offset => NULL`; a refresh recomputes only buckets that changed). With it, the
    /// window stops a day short of `drop_after`: a refresh over a range whose chunks retention
    /// dropped deletes those days from the aggregate too, and the window still covers every row
    /// retention keeps.
    /// The policy's `start_offset` (see `createDailyAggregate`): NULL without retention, else a
    /// day short of `drop_after`. TimescaleDB wants the window (to `end_offset`, an hour ago) to
    /// span two buckets: the config refuses `daily_aggregates` with a `drop_after` under 4 days.
    static func refreshWindowStart(dropAfterSeconds: Double?) -> String {
        guard let dropAfterSeconds else { return "NULL" }
        return "INTERVAL '\(max(3, Int(dropAfterSeconds / 86_400) - 1)) days'"
    }

    /// The jobs TimescaleDB's scheduler failed in the last two days with `cannot drop portal ""
    /// while it is being set up` (SQLSTATE 24000), as a warning with the workaround, or nil. On
    /// PostgreSQL 15.20 every scheduled job fails so (its `PortalDrop` refuses the portal TimescaleDB's
    /// `job_execute` never gives a query; 2.17 and 2.28 alike): the policies the sink added never
    /// run, while `CALL run_job(<id>)` from a client session does. Read from
    /// `timescaledb_information.job_errors`; nil where that view is missing or unreadable.
    static func stalledJobs(on connection: PostgresConnection) -> String? {
        guard let found = try? connection.query(
            "SELECT DISTINCT job_id::text, proc_name::text FROM timescaledb_information.job_errors "
                + "WHERE err_message LIKE 'cannot drop portal % while it is being set up' "
                + "AND start_time > now() - INTERVAL '2 days' ORDER BY 1"), found.rowCount > 0 else { return nil }
        let jobs = (0..<found.rowCount).map { (id: found.text($0, 0) ?? "?", name: found.text($0, 1) ?? "?") }
        return "TimescaleDB's scheduler failed job " + jobs.map { "\($0.id) (\($0.name))" }.joined(separator: ", ")
            + " with 'cannot drop portal \"\" while it is being set up' (timescaledb_information.job_errors): on this "
            + "PostgreSQL (15.20) its background jobs do not run, so compression, retention and the daily aggregate's "
            + "refresh do not happen; run them from cron in a client session: "
            + jobs.map { "CALL run_job(\($0.id));" }.joined(separator: " ")
    }

    private func createDailyAggregate() throws {
        let refreshStart = Self.refreshWindowStart(dropAfterSeconds: configuration.retention?.dropAfter.seconds)
        try connection.execute("""
            CREATE MATERIALIZED VIEW IF NOT EXISTS \(schema.name("samples_daily"))
            WITH (timescaledb.continuous, timescaledb.materialized_only = false) AS
            SELECT user_id, type, unit, time_bucket(INTERVAL '1 day', start_at) AS day, count(*) AS sample_count,
                   sum(value) AS sum_value, avg(value) AS avg_value, min(value) AS min_value, max(value) AS max_value
            FROM \(schema.name("samples")) GROUP BY user_id, type, unit, day WITH NO DATA
            """)
        try connection.execute("SELECT add_continuous_aggregate_policy(\(schema.regclass("samples_daily")), "
                                   + "start_offset => \(refreshStart), end_offset => INTERVAL '1 hour', "
                                   + "schedule_interval => INTERVAL '1 hour', if_not_exists => true)")
    }
}
