import HealthRouterCore

/// What the postgres and timescaledb sinks' `prepareForReading()` share when their role may not
/// change the schema (`PostgresError.refusesWrites`): a connection that reads the tables as they
/// are, and a warning when row-level security hides rows from that role.
public enum PostgresReadOnlyConnection {
    /// A sink's whole `prepareForReading()`: its own `prepare`, and when that fails because the
    /// role may not change the schema (`refusedWrites`), `open(after:…)` instead (the connection
    /// `prepare` may have left is closed); then `warnAboutRowSecurity` for `tables`. Returns the
    /// connection to read through.
    public static func prepareForReading(prepare: () throws -> Void, connection: () -> PostgresConnection?,
                                         refusedWrites: () -> Bool, url: String, statementTimeoutSeconds: Int,
                                         schema: String, versionTable: String, knownVersion: Int64, tables: [String],
                                         logger: Logger, sinkError: (PostgresError) -> SinkError) throws -> PostgresConnection? {
        var reader: PostgresConnection?
        do {
            try prepare()
            reader = connection()
        } catch let refusal as SinkError where refusedWrites() {
            connection()?.close()
            reader = try open(after: refusal, url: url, statementTimeoutSeconds: statementTimeoutSeconds, schema: schema,
                              versionTable: versionTable, knownVersion: knownVersion, logger: logger, sinkError: sinkError)
        }
        if let reader { warnAboutRowSecurity(reader, tables: tables, logger: logger) }
        return reader
    }

    /// Connects to `url` to read `schema`'s tables as they are, after `prepare()` failed with
    /// `refusal`. Refuses (misconfigured) a schema whose `versionTable` (qualified, quoted) records
    /// a version above `knownVersion`: a newer healthrouter wrote it (a version table the role may
    /// not read is passed over). A failure to connect is thrown as `sinkError` makes it.
    static func open(after refusal: SinkError, url: String, statementTimeoutSeconds: Int, schema: String,
                            versionTable: String, knownVersion: Int64, logger: Logger,
                            sinkError: (PostgresError) -> SinkError) throws -> PostgresConnection {
        logger.info("reading the tables as they are: this role may not change them", [("reason", "\(refusal)")])
        let connection: PostgresConnection
        do {
            connection = try PostgresConnection(url: url, statementTimeoutSeconds: statementTimeoutSeconds,
                                                onNotice: { notice in logger.warning("postgres: \(notice)") })
        } catch let error as PostgresError {
            throw sinkError(error)
        }
        // Nil: the query failed (not granted) or found no row (hidden by row-level security).
        let stored = try? connection.query("SELECT max(version) FROM \(versionTable)").int(0, 0)
        if let stored, stored > knownVersion {
            connection.close()
            throw SinkError.misconfigured("schema \(schema) has healthrouter schema version \(stored), written by a newer "
                                            + "healthrouter: upgrade healthrouter")
        } else if stored == nil {
            logger.warning("\(versionTable) shows this role no version (not granted, or hidden by row-level security): "
                               + "schema \(schema) is read as the layout this healthrouter writes (version \(knownVersion))")
        }
        return connection
    }

    /// Logs a warning for each of `tables` (qualified, quoted) whose rows row-level security hides
    /// from the session's role: RLS is on, and the role is not exempt (a superuser, a role with
    /// BYPASSRLS, or one with the owner's privileges, unless the table forces RLS on its owner).
    static func warnAboutRowSecurity(_ connection: PostgresConnection, tables: [String], logger: Logger) {
        for table in tables {
            let limited = try? connection.query("""
                SELECT c.relrowsecurity AND NOT r.rolsuper AND NOT r.rolbypassrls
                       AND (c.relforcerowsecurity OR NOT pg_has_role(current_user, c.relowner, 'USAGE'))
                FROM pg_class c JOIN pg_roles r ON r.rolname = current_user
                WHERE c.oid = to_regclass($1)
                """, [table]).bool(0, 0)
            if limited == true {
                logger.warning("row-level security on \(table) shows this role only the rows its policies let it see: read "
                                   + "as the table's owner or a role with BYPASSRLS to get every row")
            }
        }
    }
}
