import Foundation
import HealthRouterCore
import PostgresClient
import Synchronization

/// The `postgres` sink: health4ai's Supabase-style schema (`healthkit_metrics`, one row per
/// sample keyed by `(user_id, metric_type, source_device, started_at)`), so its MCP server and
/// SQL users read the data. Mapping in the README; quantity, category and workout samples are
/// written the way health4ai's app writes them, every other kind (correlations, activity
/// summaries, the profile, other records) as a `unit = 'record'` row that carries the whole
/// sample in its metadata, so read-back returns every kind.
///
/// - `prepare()` connects, creates the schema if missing (versioned in `healthrouter_schema`),
///   enables row-level security when asked and an `auth` schema exists, and returns the cursor
///   stored in `healthrouter_cursor` under the sink's name.
/// - `write(_:cursor:)`: one transaction per batch; COPY into a staging table (streamed while the
///   batch is encoded) and an upsert that writes only new or changed rows; tombstones delete by
///   id (and, with tiering, take a folded sample out of its day's summary); the cursor in the same
///   transaction.
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
        /// Tiering: raw quantity rows older than this are folded into `healthkit_daily_summaries`
        /// and deleted (nil: keep every raw row).
        public var summarizeAfter: ConfigDuration?

        /// Why `summarize_after` is likely wrong though it works, for `check` and start to print:
        /// under 30 days, health4ai's reader, which reads raw rows for windows of up to 30 days and
        /// summaries only beyond, misses the days already folded. Nil when fine.
        public var summarizeAfterWarning: String? {
            guard let after = summarizeAfter, after.seconds < 30 * 86_400 else { return nil }
            return "summarize_after \(after) is under 30d: health4ai's reader reads raw rows for windows of up to 30 days "
                + "(summaries only beyond), so it would undercount the days already folded into summaries; use 30d or more"
        }
        /// The IANA zone whose days the summaries and the daily view use (health4ai's reader: UTC by default); a
        /// POSIX-style offset (`+02:00`, `UTC+2`) is refused (`PostgresTimeZoneName`), as is a name
        /// the server does not list in `pg_timezone_names` (at connect).
        public var timeZone: String = "UTC"
        public var statementTimeout: ConfigDuration = .minutes(5)

        public init(url: String, userId: String, schema: String = "public", rowLevelSecurity: Bool = false) {
            self.url = url
            self.userId = userId
            self.schema = schema
            self.rowLevelSecurity = rowLevelSecurity
        }

        enum CodingKeys: String, CodingKey, CaseIterable {
            case url, schema, userId = "user_id", rowLevelSecurity = "row_level_security"
            case summarizeAfter = "summarize_after", timeZone = "time_zone"
            case statementTimeout = "statement_timeout"
        }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            url = try c.decodePostgresURL(forKey: .url)
            userId = try c.decodeNonEmptyString(forKey: .userId)
            schema = try c.decodeSchemaName(forKey: .schema)
            rowLevelSecurity = try c.decodeIfPresent(Bool.self, forKey: .rowLevelSecurity) ?? false
            summarizeAfter = try c.decodeDeletionAgeIfPresent(forKey: .summarizeAfter,
                                                              deletes: "raw rows older than this are folded into daily summaries and deleted")
            timeZone = try c.decodeIfPresent(String.self, forKey: .timeZone) ?? "UTC"
            statementTimeout = try c.decodeStatementTimeout(forKey: .statementTimeout)
            // The server knows the zones (checked at connect); this catches what cannot be a zone's
            // name, and POSIX-style offsets, which PostgreSQL would apply with the opposite sign.
            if let problem = PostgresTimeZoneName.problem(with: timeZone) {
                throw DecodingError.dataCorruptedError(forKey: .timeZone, in: c, debugDescription: problem)
            }
        }
    }

    public let configuration: Configuration
    let logger: Logger
    let sinkName: String
    let schema: PostgresSinkSchema
    /// The connection and the cursor `healthrouter_cursor` holds for this sink.
    let session: PostgresSinkSession
    private var rows = CopyTextWriter(capacity: 1 << 18)
    /// Sends the batch's rows to the server while the rest are encoded.
    private var stream: PostgresUpsertStream
    private var json = JSONWriter(capacity: 1024)
    private var fields = JSONWriter(capacity: 256)
    /// Whether the schema has `healthkit_summarized_ids` (tiering is or was on): tombstones then
    /// also take folded samples out of their summaries. Set by `prepare()`.
    private var tiered = false
    /// `configuration.userId` as stored.
    private let defaultUserId: String
    /// The sample users each sink (by name) said it stores under another id (`announce`), for the
    /// process: a sink made anew (a reconnect, a reload) does not say it again.
    private static let announcedUsers = Mutex<Set<String>>([])
    /// The last sample user met.
    private var lastUser: String?

    /// Says once a process, for a sample's user that is no UUID (a push source's user name), the
    /// user_id its rows get: health4ai reads one user_id, and the sink's own applies only to samples
    /// without a user (an import).
    private func announce(_ user: String) {
        lastUser = user
        guard !PostgresUserId.isUUID(user),
              Self.announcedUsers.withLock({ $0.insert(sinkName + "\u{1F}" + user).inserted }) else { return }
        let stored = PostgresUserId.normalized(user)
        // A warning: an import shows it too (a health4ai reader set to the sink's user_id sees none of these).
        logger.warning("samples of user \(user) are stored as user_id \(stored) (set HEALTHKIT_USER_ID=\(stored) for health4ai to "
                        + "read them; the sink's user_id applies to samples without a user)")
    }
    /// Rows tiering folds: quantities, not category, workout (health4ai reads those raw) or
    /// `record` rows (correlations, activity summaries, …, which have no value to sum).
    static let foldable = PostgresSinkSchema.quantityRows

    public init(configuration: Configuration, context: PluginContext) {
        self.configuration = configuration
        self.logger = context.logger.with("sink", context.name)
        self.sinkName = context.name
        self.schema = PostgresSinkSchema(schema: configuration.schema)
        self.session = PostgresSinkSession(sinkType: "postgres", context: context, url: configuration.url,
                                           statementTimeout: configuration.statementTimeout, schema: configuration.schema,
                                           cursorTable: schema.name("healthrouter_cursor"))
        self.stream = PostgresUpsertStream(table: schema.metrics)
        self.defaultUserId = PostgresUserId.normalized(configuration.userId)
    }

    /// Whether `prepare()` made the schema's tables (no schema version was recorded: `Sink.createdItsStore`).
    public private(set) var createdItsStore = false

    public func prepare() throws -> Int64? {
        do {
            let connection = try session.connect()
            // Before any DDL (the daily view's days and the summaries' are in this zone): a wrong
            // zone leaves nothing behind. A zone's name, not anything `AT TIME ZONE` takes: an
            // abbreviation (`CEST`) is a fixed offset all year, a POSIX-style offset (`+02:00`) has
            // the opposite sign.
            let known = try connection.query("SELECT 1 FROM pg_timezone_names WHERE lower(name) = lower($1)",
                                             [configuration.timeZone])
            if known.rowCount == 0 {
                connection.close()
                throw SinkError.misconfigured("time_zone '\(configuration.timeZone)' is not the name of a zone PostgreSQL knows "
                                                  + "(pg_timezone_names): use an IANA name such as Europe/Lisbon")
            }
            var forgotten: [String]?
            try connection.transaction {
                try connection.query("SELECT pg_advisory_xact_lock(hashtext($1))", ["healthrouter:" + configuration.schema])
                // Keep the view's security_invoker when another sink's prepare (with RLS) set it.
                let invoker = try connection.serverVersion >= 150_000 && (configuration.rowLevelSecurity || connection.query(
                    "SELECT o.option_value::bool FROM pg_class c, pg_options_to_table(c.reloptions) o "
                        + "WHERE c.oid = to_regclass($1) AND o.option_name = 'security_invoker'",
                    [schema.name("v_healthkit_daily_quantity")]).bool(0, 0) == true)
                // Before anything else: a table renamed is no table dropped (its rows are there).
                try RenamedTables.check(connection, schema: configuration.schema,
                                        indexes: PostgresSinkSchema.indexNames(tiered: configuration.summarizeAfter != nil),
                                        sink: "postgres sink '\(sinkName)'")
                // Before the DDL, which would create a dropped table anew, empty, under the cursors.
                forgotten = try forgetCursorsOfMissingTables(connection)
                // Before the DDL: on health4ai's own tables, its view's columns would fail it first.
                try checkMetricsLayout(connection)
                for statement in schema.ddl(viewSecurityInvoker: invoker, timeZone: configuration.timeZone) {
                    try connection.execute(statement)
                }
                let stored = try connection.query("SELECT max(version) FROM \(schema.name("healthrouter_schema"))").int(0, 0)
                if let stored, stored > PostgresSinkSchema.version {
                    throw SinkError.misconfigured("schema \(configuration.schema) has healthrouter schema version \(stored), "
                                                    + "written by a newer healthrouter: upgrade healthrouter")
                }
                createdItsStore = stored == nil || forgotten != nil
                if stored == nil {
                    try connection.execute("INSERT INTO \(schema.name("healthrouter_schema")) (version) VALUES "
                                               + "(\(PostgresSinkSchema.version)) ON CONFLICT DO NOTHING")
                }
                // The ids folded so far: a sample delivered again after its day was folded (a
                // backfill, a migration) is then dropped instead of counted twice, and a tombstone
                // takes its value out of the summary, also after tiering was turned off.
                tiered = try configuration.summarizeAfter != nil
                    || connection.query("SELECT to_regclass($1) IS NOT NULL", [schema.name("healthkit_summarized_ids")]).bool(0, 0) == true
                if tiered {
                    for statement in schema.summarizedIdsDDL { try connection.execute(statement) }
                }
                if configuration.rowLevelSecurity { try enableRowLevelSecurity(connection) }
            }
            if let forgotten {
                logger.warning(MissingDataTables.warning(schema: configuration.schema, cursorTable: "healthrouter_cursor",
                                                         missing: forgotten))
            }
            if configuration.summarizeAfter != nil {
                // A partial index on exactly the rows a fold takes, so folding after every batch
                // reads only the rows it folds.
                // (Named anew when the foldable rows changed to leave `record` rows out; the old one goes.)
                try connection.execute("DROP INDEX IF EXISTS \(schema.name("idx_healthkit_metrics_unsummarized"))")
                try connection.execute("CREATE INDEX IF NOT EXISTS idx_healthkit_metrics_foldable ON "
                                           + "\(schema.name("healthkit_metrics")) (started_at) WHERE \(Self.foldable)")
                // The first fold takes everything older than summarize_after: on a large store (tiering
                // turned on for it, or after a long stop) that may take longer than the statement
                // timeout, and failing it would fail every start the same way. Without the timeout,
                // as timescaledb's migrate_data and key build. (A batch's fold takes what that batch
                // and a day's passing made foldable: bounded.)
                try connection.transaction {
                    try connection.execute("SET LOCAL statement_timeout = 0")
                    try summarize(connection)
                }
            }
            let user = PostgresUserId.normalized(configuration.userId)
            if user != configuration.userId {
                logger.info("user_id \(configuration.userId) is stored as \(user) (set HEALTHKIT_USER_ID=\(user) for health4ai)")
            }
            return try session.adopt(connection) ?? 0
        } catch {
            throw session.prepareFailure(error) { error, opened in error.explained(on: opened, tables: tables).sinkError }
        }
    }

    /// Opens the tables to be read only (`ReadableSink`): prepared as `prepare()` does when the role
    /// may change the schema, else (a role granted SELECT only, a read-only standby) connected as
    /// they are, nothing created; a schema a newer healthrouter wrote is refused as `prepare()`
    /// refuses it. Either way a warning says when row-level security hides rows from the role.
    public func prepareForReading() throws {
        try session.prepareForReading(prepare: { _ = try prepare() }, versionTable: schema.name("healthrouter_schema"),
                                      knownVersion: PostgresSinkSchema.version, tables: [schema.name("healthkit_metrics")],
                                      sinkError: \.sinkError)
    }

    /// RLS on both tables with policies on `auth.uid()`, created once; the daily view runs with
    /// the querying user's rights (`security_invoker`, set by the DDL), so the policies hold
    /// through it too (a view otherwise reads with its owner's rights, past every policy). The
    /// bookkeeping tables (`healthrouter_schema`, `healthrouter_cursor`, `healthkit_summarized_ids`)
    /// get RLS without a policy: closed to every role but the owner and those that bypass RLS.
    private func enableRowLevelSecurity(_ connection: PostgresConnection) throws {
        guard connection.serverVersion >= 150_000 else {
            throw SinkError.misconfigured("row_level_security: true needs PostgreSQL 15 or later (this server is "
                                            + "\(connection.serverVersion / 10_000)): older servers cannot make the daily view "
                                            + "v_healthkit_daily_quantity respect the policies, so it would show every user's data")
        }
        let hasAuth = try connection.query(
            "SELECT 1 FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'auth' AND p.proname = 'uid'")
        guard hasAuth.rowCount > 0 else {
            throw SinkError.misconfigured("row_level_security: true needs Supabase's auth.uid() function, which this "
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
        // Bookkeeping: RLS with no policy, so only healthrouter's role (the owner, or one that bypasses
        // RLS) reads or writes them, not Supabase's API roles, which get default privileges on every
        // table of `public`: they could otherwise store a schema version that stops the sink, or move
        // its cursor past data it never wrote.
        var bookkeeping = ["healthrouter_schema", "healthrouter_cursor"]
        // Whenever the table is there, also after tiering was turned off (its rows, each folded
        // sample's value and user, stay for tombstones): it was left open to every API role then.
        if tiered { bookkeeping.append("healthkit_summarized_ids") }
        for table in bookkeeping {
            try connection.execute("ALTER TABLE \(schema.name(table)) ENABLE ROW LEVEL SECURITY")
        }
        // TRUNCATE passes by RLS: Supabase's default grants give it to its API roles, which could
        // empty every user's rows (or the cursor) in one statement. Taken back from those there are.
        let apiRoles = try connection.query("SELECT rolname::text FROM pg_roles WHERE rolname IN ('anon', 'authenticated') "
                                                + "ORDER BY 1")
        let roles = (0..<apiRoles.rowCount).compactMap { apiRoles.text($0, 0) }
        if !roles.isEmpty {
            let tables = (["healthkit_metrics", "healthkit_daily_summaries"] + bookkeeping).map(schema.name).joined(separator: ", ")
            try connection.execute("REVOKE TRUNCATE ON \(tables) FROM \(roles.map(SQL.identifier).joined(separator: ", "))")
        }
    }

    /// `MissingDataTables` for this schema: `healthkit_metrics`, and `healthkit_daily_summaries`
    /// once tiering has folded into it; with the summaries gone, the ids they had folded are
    /// forgotten too, so the rows delivered again are folded anew.
    private func forgetCursorsOfMissingTables(_ connection: PostgresConnection) throws -> [String]? {
        let qualify = { (table: String) in self.schema.name(table) }
        let folded = try MissingDataTables.exists("healthkit_summarized_ids", connection, qualify)
        guard let missing = try MissingDataTables.forgetCursors(
            connection, cursorTable: "healthrouter_cursor",
            tables: ["healthkit_metrics"] + (folded ? ["healthkit_daily_summaries"] : []), qualify: qualify) else { return nil }
        if missing.contains("healthkit_daily_summaries") {
            try connection.execute("DELETE FROM \(schema.name("healthkit_summarized_ids"))")
        }
        return missing
    }

    /// Refuses a `healthkit_metrics` that another program made (health4ai's own `schema.sql`: no
    /// `journal_seq`, its key `(user_id, metric_type, started_at)`) and that `CREATE TABLE IF NOT
    /// EXISTS` would leave as it is: every write would fail on it, or a second source at one start
    /// would break its key. Says how to bring it up to date. Nothing to check in a new schema.
    private func checkMetricsLayout(_ connection: PostgresConnection) throws {
        let table = schema.name("healthkit_metrics")
        func columnNames(_ relation: String) throws -> Set<String> {
            let result = try connection.query("SELECT attname::text FROM pg_attribute WHERE attrelid = to_regclass($1) "
                                                  + "AND attnum > 0 AND NOT attisdropped", [relation])
            return Set((0..<result.rowCount).compactMap { result.text($0, 0) })
        }
        // health4ai's daily view (its day column is `day`): replacing it with healthrouter's fails.
        let view = schema.name("v_healthkit_daily_quantity")
        let viewColumns = try columnNames(view)
        let foreignView = !viewColumns.isEmpty && !viewColumns.contains("summary_date")
        let present = try columnNames(table)
        let missing = present.isEmpty ? [] : schema.metrics.columns.map(\.name).filter { !present.contains($0) }
        // Unique keys of `relation` by their sorted columns: (name, is a constraint).
        func uniqueKeys(on columns: [String], of relation: String = table) throws -> [(name: String, isConstraint: Bool)] {
            let result = try connection.query("""
                SELECT c.relname::text, EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid)
                FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
                WHERE i.indrelid = to_regclass($1) AND i.indisunique AND i.indpred IS NULL
                  AND (SELECT array_agg(a.attname::text ORDER BY a.attname::text) FROM pg_attribute a
                       WHERE a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)) = $2::text[]
                """, [relation, SQL.textArray(columns.sorted())])
            return (0..<result.rowCount).compactMap { row in result.text(row, 0).map { ($0, result.bool(row, 1) == true) } }
        }
        let keyed = try present.isEmpty || !uniqueKeys(on: ["user_id", "metric_type", "source_device", "started_at"]).isEmpty
        let narrow = try present.isEmpty ? [] : uniqueKeys(on: ["user_id", "metric_type", "started_at"])
        let summaryFixes = try summariesLayoutFixes(columnNames: columnNames, uniqueKeys: uniqueKeys)
        // health4ai's Supabase migrations name the summaries' day column `date`, where its reader,
        // healthrouter's daily view and the fold read `summary_date`.
        let summaries = schema.name("healthkit_daily_summaries")
        let summaryColumns = try columnNames(summaries)
        let dateNamed = !summaryColumns.contains("summary_date") && summaryColumns.contains("date")
        let userIdFixes = try userIdTypeFixes(connection)
        guard !missing.isEmpty || !keyed || !narrow.isEmpty || foreignView || !summaryFixes.isEmpty || dateNamed
                || !userIdFixes.statements.isEmpty else { return }
        var lacks: [String] = []
        if !missing.isEmpty {
            lacks.append("healthkit_metrics lacks the column\(missing.count == 1 ? "" : "s") \(missing.joined(separator: ", "))")
        }
        if !keyed { lacks.append("healthkit_metrics lacks a unique key on (user_id, metric_type, source_device, started_at)") }
        if !narrow.isEmpty {
            lacks.append("healthkit_metrics has a unique key on (user_id, metric_type, started_at), which two sources at one start break")
        }
        if foreignView { lacks.append("the daily view v_healthkit_daily_quantity has other columns (health4ai's)") }
        lacks += userIdFixes.lacks
        if dateNamed {
            lacks.append("healthkit_daily_summaries names its day column date (health4ai's Supabase migrations), where health4ai's "
                             + "reader and healthrouter read summary_date")
        }
        if !summaryFixes.isEmpty {
            lacks.append("healthkit_daily_summaries lacks the unique key (user_id, metric_type, summary_date, unit) that "
                             + "summarize_after folds days into")
        }
        // A column of healthrouter's table missing (renamed or dropped since): added back, empty.
        let addedBack = schema.metrics.columns.filter { missing.contains($0.name) && $0.name != "journal_seq" }.map {
            "ALTER TABLE \(table) ADD COLUMN IF NOT EXISTS \(SQL.identifier($0.name)) "
                + $0.declaration.replacingOccurrences(of: " NOT NULL", with: "")
        }
        var statements = present.isEmpty ? [] : addedBack + [
            "ALTER TABLE \(table) ADD COLUMN IF NOT EXISTS journal_seq bigint",
            "UPDATE \(table) SET source_device = '' WHERE source_device IS NULL",
            "ALTER TABLE \(table) ALTER COLUMN source_device SET DEFAULT '', ALTER COLUMN source_device SET NOT NULL"]
        if !keyed {
            statements.append("ALTER TABLE \(table) ADD CONSTRAINT healthkit_metrics_user_metric_source_start "
                                  + "UNIQUE (user_id, metric_type, source_device, started_at)")
        }
        for key in narrow {
            statements.append(key.isConstraint ? "ALTER TABLE \(table) DROP CONSTRAINT \(SQL.identifier(key.name))"
                                  : "DROP INDEX \(SQL.qualified(configuration.schema, key.name))")
        }
        // healthrouter makes its own daily view; health4ai's has other columns (what depends on it
        // must go first: the statement says no CASCADE).
        statements.append("DROP VIEW IF EXISTS \(view)")
        if dateNamed { statements.append("ALTER TABLE \(summaries) RENAME COLUMN date TO summary_date") }
        statements += userIdFixes.statements
        statements += summaryFixes
        throw SinkError.misconfigured(
            "schema \(configuration.schema): \(lacks.joined(separator: "; ")), unlike the tables healthrouter makes (another "
                + "program made them, such as health4ai's own schema.sql, or they were altered since). To fix: set `schema` to a new one (healthrouter creates its "
                + "tables there; `healthrouter backfill` fills them), or bring the tables up to date: "
                + statements.joined(separator: "; "))
    }

    /// What differs, and the statements that change it, where a table's `user_id` is not text:
    /// health4ai's Supabase migrations make it `uuid REFERENCES auth.users`, with policies
    /// `auth.uid() = user_id`. healthrouter writes text (every write failed on it with SQLSTATE
    /// 42804, and with `row_level_security: true` its policy with 42883), and a push user's UUIDv5
    /// has no `auth.users` row: the statements drop the policies and foreign keys on `user_id`
    /// (`row_level_security: true` makes healthrouter's own on `auth.uid()`) and make it text.
    /// The caller drops the daily view, which depends on the column, before these.
    private func userIdTypeFixes(_ connection: PostgresConnection) throws -> (lacks: [String], statements: [String]) {
        var lacks: [String] = []
        var statements: [String] = []
        for name in ["healthkit_metrics", "healthkit_daily_summaries"] {
            let table = schema.name(name)
            let type = try connection.query("SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = to_regclass($1) "
                                                + "AND attname = 'user_id' AND NOT attisdropped", [table]).text(0, 0)
            guard let type, type != "text" else { continue }
            lacks.append("\(name).user_id is \(type) (health4ai's Supabase migrations), where healthrouter stores text "
                             + "(a push user's UUIDv5 has no auth.users row; with row_level_security: true healthrouter makes its own "
                             + "policy on auth.uid())")
            let policies = try connection.query("SELECT policyname::text FROM pg_policies WHERE schemaname = $1 AND tablename = $2 "
                                                    + "AND (coalesce(qual, '') ~ 'user_id' OR coalesce(with_check, '') ~ 'user_id') "
                                                    + "ORDER BY 1", [configuration.schema, name])
            for row in 0..<policies.rowCount {
                if let policy = policies.text(row, 0) { statements.append("DROP POLICY \(SQL.identifier(policy)) ON \(table)") }
            }
            let foreignKeys = try connection.query("""
                SELECT conname::text FROM pg_constraint WHERE conrelid = to_regclass($1) AND contype = 'f'
                  AND conkey @> ARRAY[(SELECT attnum FROM pg_attribute WHERE attrelid = to_regclass($1) AND attname = 'user_id')]
                ORDER BY 1
                """, [table])
            for row in 0..<foreignKeys.rowCount {
                if let key = foreignKeys.text(row, 0) { statements.append("ALTER TABLE \(table) DROP CONSTRAINT \(SQL.identifier(key))") }
            }
            statements.append("ALTER TABLE \(table) ALTER COLUMN user_id TYPE text USING user_id::text")
        }
        return (lacks, statements)
    }

    /// The statements that bring a `healthkit_daily_summaries` another program made (health4ai's
    /// `schema.sql`: its key `(user_id, metric_type, summary_date)`, `unit` that may be NULL; an
    /// older one's day column `date`) to the key tiering's fold writes by: none when tiering is off,
    /// the table is not there yet, or it has that key.
    private func summariesLayoutFixes(columnNames: (String) throws -> Set<String>,
                                      uniqueKeys: ([String], String) throws -> [(name: String, isConstraint: Bool)]) throws -> [String] {
        guard configuration.summarizeAfter != nil else { return [] }
        let summaries = schema.name("healthkit_daily_summaries")
        let columns = try columnNames(summaries)
        guard !columns.isEmpty else { return [] }
        let keyed = try !uniqueKeys(["user_id", "metric_type", "summary_date", "unit"], summaries).isEmpty
        let narrow = try uniqueKeys(["user_id", "metric_type", "summary_date"], summaries)
            + uniqueKeys(["user_id", "metric_type", "date"], summaries)
        guard !keyed || !narrow.isEmpty else { return [] }
        // (A day column named `date` is renamed by `checkMetricsLayout`, with or without tiering.)
        var statements = ["UPDATE \(summaries) SET unit = '' WHERE unit IS NULL",
                       "ALTER TABLE \(summaries) ALTER COLUMN unit SET DEFAULT '', ALTER COLUMN unit SET NOT NULL"]
        for key in narrow {
            statements.append(key.isConstraint ? "ALTER TABLE \(summaries) DROP CONSTRAINT \(SQL.identifier(key.name))"
                                  : "DROP INDEX \(SQL.qualified(configuration.schema, key.name))")
        }
        if !keyed {
            statements.append("ALTER TABLE \(summaries) ADD CONSTRAINT healthkit_daily_summaries_key "
                                  + "UNIQUE (user_id, metric_type, summary_date, unit)")
        }
        return statements
    }

    public func write(_ entries: [JournalEntry], cursor: Int64) throws {
        let connection = try session.connectionForWrite(reconnect: reconnect)
        do {
            try session.writeBatch(cursor: cursor, on: connection) {
                rows.reset()
                stream.reset()
                for entry in entries {
                    switch entry.item {
                    case .sample(let sample):
                        if let user = sample.userId, user != lastUser { announce(user) }
                        PostgresMetricRow.append(sample, sequence: entry.sequence, defaultUserId: defaultUserId,
                                                 json: &json, fields: &fields, into: &rows)
                        try stream.sendIfFull(&rows, on: connection)
                    case .tombstone(let tombstone):
                        try flush(connection)
                        let uuids = tombstone.ids.map(PostgresUserId.uuid)
                        try connection.query("DELETE FROM \(schema.name("healthkit_metrics")) WHERE id = ANY($1::uuid[])",
                                             [SQL.textArray(uuids)])
                        if tiered { try unsummarize(uuids, on: connection) }
                    }
                }
                try flush(connection)
                try summarize(connection)
            }
        } catch let error as PostgresError {
            throw error.explained(on: connection, tables: tables).writeError
        }
    }

    /// The sink's tables, qualified: where a refused privilege is looked for (`PostgresError.explained`).
    private var tables: [String] {
        PostgresSinkSchema.indexNames(tiered: tiered || configuration.summarizeAfter != nil).keys.sorted().map(schema.name)
    }

    /// Ends the batch's COPY and upserts. A sample whose id is stored under another key (its start,
    /// type or device changed), or staged twice under two keys, fails the upsert on the id's primary
    /// key: the upsert is rolled back to a savepoint (the staged rows stay), the id's earlier staged
    /// versions and its old row deleted, and the upsert run again. The common batch, new or
    /// unchanged samples, pays only for the savepoint.
    private func flush(_ connection: PostgresConnection) throws {
        let table = schema.metrics
        try stream.finish(&rows, on: connection) { upsert in
            try self.reportSharedKeys(connection)
            try connection.execute("SAVEPOINT hr_upsert")
            let written: Int
            do {
                written = try connection.execute(upsert).affectedRows
            } catch let error as PostgresError where error.sqlState == "23505"
                && error.constraint == PostgresSinkSchema.metricsPrimaryKey {
                try connection.execute("ROLLBACK TO SAVEPOINT hr_upsert")
                // An id staged twice (an edit in the same batch): its last version only.
                try connection.execute(table.deleteStagedEarlierVersionsSQL(identity: "id"))
                try connection.execute(table.deleteMovedSQL(identity: "id"))
                written = try connection.execute(upsert).affectedRows
            }
            try connection.execute("RELEASE SAVEPOINT hr_upsert")
            return written
        }
    }

    /// Whether this sink (by name) has warned of samples sharing a key, for the process: later
    /// batches say it at info level, so that a large import does not repeat the warning a batch.
    private static let warnedSharedKeys = Mutex<Set<String>>([])

    /// Says how many staged samples share health4ai's key `(user_id, metric_type, source_device,
    /// started_at)` with another of the batch (an export's in-bed interval and the first sleep stage
    /// from one watch at one instant): they become one row, the later journal entry's, and the
    /// others are not stored, which the import's count of rows delivered does not show. (Samples
    /// of other batches under a stored row's key are not counted: that would cost an index lookup
    /// a row.)
    ///
    /// The keys staged more than once are found first by hashing (a batch's few milliseconds); only
    /// their rows are sorted to count distinct ids (an id staged twice is an edit, not two samples).
    private func reportSharedKeys(_ connection: PostgresConnection) throws {
        let staging = schema.metrics.stagingName
        let shared = try connection.execute("""
            WITH repeated AS (SELECT user_id, metric_type, source_device, started_at FROM \(staging)
                              GROUP BY 1, 2, 3, 4 HAVING count(*) > 1)
            SELECT sum(n - 1) OVER ()::bigint, metric_type, source_device, to_char(to_timestamp(started_at::float8 / 1000) \
            AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
            FROM (SELECT s.metric_type, s.source_device, s.started_at, count(DISTINCT s.id) AS n
                  FROM \(staging) s JOIN repeated USING (user_id, metric_type, source_device, started_at)
                  GROUP BY s.user_id, s.metric_type, s.source_device, s.started_at HAVING count(DISTINCT s.id) > 1) d
            ORDER BY started_at, metric_type LIMIT 1
            """)
        guard shared.rowCount > 0, let count = shared.int(0, 0) else { return }
        let first = "\(shared.text(0, 1) ?? "") from \(shared.text(0, 2) ?? "") at \(shared.text(0, 3) ?? "")"
        let message = "\(count) sample\(count == 1 ? "" : "s") of this batch shared a row with another under health4ai's key "
            + "(user, type, source_device, start) and \(count == 1 ? "is" : "are") not stored: the later journal entry's row is "
            + "kept (first: \(first)); the other sinks keep each (Plugins/PostgresSink/README.md, Mapping)"
        if Self.warnedSharedKeys.withLock({ $0.insert(sinkName).inserted }) {
            logger.warning(message)
        } else {
            logger.info(message)
        }
    }

    /// A new connection, prepared as at the start (`Sink.reconnect()`): for reading only when the
    /// sink was opened so (`migrate --from` reading again after its connection was lost).
    public func reconnect() throws {
        try session.reconnect(prepare: { _ = try prepare() }, prepareForReading: prepareForReading)
    }

    public func close() {
        session.close()
    }
}
