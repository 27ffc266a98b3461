import Foundation
import HealthRouterCore
import PostgresClient

/// The `postgres` sink: health4ai's Supabase-style schema (`healthkit_metrics`, one row per
/// sample keyed by `(user_id, metric_type, source_device, started_at)`), so its MCP server and
/// SQL users read the data. Mapping in the README; quantity, category and workout samples are
/// written, other kinds (correlations, whose members are samples of their own, activity
/// summaries, the profile, records) are skipped.
///
/// - `prepare()` connects, creates the schema if missing (versioned in `healthrouter_schema`),
///   enables row-level security when asked and an `auth` schema exists, and returns the cursor
///   stored in `healthrouter_cursor` under the sink's name.
/// - `write(_:cursor:)`: one transaction per batch; COPY into a staging table and an upsert that
///   writes only new or changed rows; tombstones delete by id; the cursor in the same transaction.
public final class PostgresSink: Sink {
    public struct Configuration: Decodable, Sendable {
        /// A libpq URL or conninfo (`postgres://postgres:${SUPABASE_DB_PASSWORD}@db.x.supabase.co:5432/postgres`).
        public var url: String
        /// The schema of the tables (health4ai reads them unqualified: keep `public`).
        public var schema: String = "public"
        /// The user the rows belong to when a sample names none: a UUID (stored lower-case), or any
        /// name, stored as its UUIDv5 (printed at start, for the reader's `HEALTHKIT_USER_ID`).
        public var userId: String
        /// Enable RLS with `auth.uid()` policies (when the database has an `auth` schema).
        public var rowLevelSecurity: Bool = false
        public var statementTimeout: ConfigDuration = .minutes(5)

        public init(url: String, userId: String, schema: String = "public", rowLevelSecurity: Bool = false) {
            self.url = url
            self.userId = userId
            self.schema = schema
            self.rowLevelSecurity = rowLevelSecurity
        }

        enum CodingKeys: String, CodingKey, CaseIterable {
            case url, schema, userId = "user_id", rowLevelSecurity = "row_level_security"
            case statementTimeout = "statement_timeout"
        }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            url = try c.decode(String.self, forKey: .url)
            userId = try c.decode(String.self, forKey: .userId)
            schema = try c.decodeIfPresent(String.self, forKey: .schema) ?? "public"
            rowLevelSecurity = try c.decodeIfPresent(Bool.self, forKey: .rowLevelSecurity) ?? false
            statementTimeout = try c.decodeIfPresent(ConfigDuration.self, forKey: .statementTimeout) ?? .minutes(5)
            if userId.isEmpty {
                throw DecodingError.dataCorruptedError(forKey: .userId, in: c, debugDescription: "must not be empty")
            }
            if schema.isEmpty {
                throw DecodingError.dataCorruptedError(forKey: .schema, in: c, debugDescription: "must not be empty")
            }
        }
    }

    public let configuration: Configuration
    private let logger: Logger
    private let sinkName: String
    private let schema: PostgresSinkSchema
    private var connection: PostgresConnection?
    private var rows = CopyTextWriter()
    private var json = JSONWriter(capacity: 1024)
    /// Samples of kinds this schema has no place for, skipped so far.
    public private(set) var skipped = 0

    public init(configuration: Configuration, context: PluginContext) {
        self.configuration = configuration
        self.logger = context.logger.with("sink", context.name)
        self.sinkName = context.name
        self.schema = PostgresSinkSchema(schema: configuration.schema)
    }

    public func prepare() throws -> Int64? {
        do {
            let connection = try PostgresConnection(url: configuration.url,
                                                    statementTimeoutSeconds: Int(configuration.statementTimeout.seconds))
            try connection.transaction {
                try connection.query("SELECT pg_advisory_xact_lock(hashtext($1))", ["healthrouter:" + configuration.schema])
                for statement in schema.ddl { try connection.execute(statement) }
                let stored = try connection.query("SELECT max(version) FROM \(schema.name("healthrouter_schema"))").int(0, 0)
                if let stored, stored > PostgresSinkSchema.version {
                    throw SinkError.unavailable("schema \(configuration.schema) has healthrouter schema version \(stored), "
                                                    + "written by a newer healthrouter: upgrade healthrouter")
                }
                if stored == nil {
                    try connection.execute("INSERT INTO \(schema.name("healthrouter_schema")) (version) VALUES "
                                               + "(\(PostgresSinkSchema.version)) ON CONFLICT DO NOTHING")
                }
                if configuration.rowLevelSecurity { try enableRowLevelSecurity(connection) }
            }
            self.connection = connection
            let user = PostgresUserId.normalized(configuration.userId)
            if user != configuration.userId {
                logger.info("user_id \(configuration.userId) is stored as \(user) (set HEALTHKIT_USER_ID=\(user) for health4ai)")
            }
            return try connection.query("SELECT journal_seq FROM \(schema.name("healthrouter_cursor")) WHERE sink = $1",
                                        [sinkName]).int(0, 0)
        } catch let error as SinkError {
            throw error
        } catch {
            throw SinkError.unavailable("\(error)")
        }
    }

    /// RLS on both tables with policies on `auth.uid()`, created once.
    private func enableRowLevelSecurity(_ connection: PostgresConnection) throws {
        let hasAuth = try connection.query(
            "SELECT 1 FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'auth' AND p.proname = 'uid'")
        guard hasAuth.rowCount > 0 else {
            throw SinkError.unavailable("row_level_security: true needs Supabase's auth.uid() function, which this "
                                            + "database lacks: remove the option or use a Supabase database")
        }
        for table in ["healthkit_metrics", "healthkit_daily_summaries"] {
            try connection.execute("ALTER TABLE \(schema.name(table)) ENABLE ROW LEVEL SECURITY")
            let policy = table + "_owner"
            let exists = try connection.query("SELECT 1 FROM pg_policies WHERE schemaname = $1 AND tablename = $2 "
                                                  + "AND policyname = $3", [configuration.schema, table, policy])
            if exists.rowCount == 0 {
                try connection.execute("CREATE POLICY \(SQL.identifier(policy)) ON \(schema.name(table)) "
                                           + "USING ((SELECT auth.uid())::text = user_id) "
                                           + "WITH CHECK ((SELECT auth.uid())::text = user_id)")
            }
        }
    }

    public func write(_ entries: [JournalEntry], cursor: Int64) throws {
        guard let connection else { throw SinkError.unavailable("postgres: write before prepare") }
        do {
            try connection.transaction {
                rows.reset()
                for entry in entries {
                    switch entry.item {
                    case .sample(let sample):
                        if !PostgresMetricRow.append(sample, sequence: entry.sequence, defaultUserId: configuration.userId,
                                                     json: &json, into: &rows) {
                            skipped += 1
                        }
                    case .tombstone(let tombstone):
                        try flush(connection)
                        try connection.query("DELETE FROM \(schema.name("healthkit_metrics")) WHERE id = ANY($1::uuid[])",
                                             [SQL.textArray(tombstone.ids.map(PostgresUserId.uuid))])
                    }
                }
                try flush(connection)
                try connection.query("INSERT INTO \(schema.name("healthrouter_cursor")) (sink, journal_seq) VALUES ($1, $2) "
                                         + "ON CONFLICT (sink) DO UPDATE SET journal_seq = EXCLUDED.journal_seq",
                                     [sinkName, String(cursor)])
            }
        } catch let error as PostgresError {
            throw error.isDataError ? SinkError.rejected(error.description) : SinkError.unavailable(error.description)
        }
    }

    private func flush(_ connection: PostgresConnection) throws {
        try schema.metrics.write(rows, on: connection)
        rows.reset()
    }

    /// The open connection, for read-back.
    var liveConnection: PostgresConnection? { connection }

    public func close() {
        connection?.close()
        connection = nil
    }
}
