extension PostgresError {
    /// This error with what the session it happened on tells about it, for a sink to report:
    /// for an insufficient privilege (42501), the privileges the role lacks on `tables` (the
    /// sink's, qualified) and the GRANT that gives them back, as `misconfiguration`; for a
    /// session that takes no writes (25006), why (`readOnlyReason`). Asked after the failed
    /// transaction ended; as it is when `connection` cannot tell (gone, or nothing found).
    public func explained(on connection: PostgresConnection?, tables: [String]) -> PostgresError {
        guard let connection, connection.isConnected, let sqlState, ["42501", "25006"].contains(sqlState) else { return self }
        var explained = self
        if sqlState == "42501" {
            // A table's privileges (PostgreSQL before 11 said "relation"); not an owner's DDL or a schema.
            guard ["permission denied for table ", "permission denied for relation "].contains(where: message.hasPrefix) else {
                return self
            }
            explained.misconfiguration = (try? Self.missingGrants(on: connection, tables: tables)) ?? nil
        } else {
            explained.readOnlyReason = (try? Self.readOnlyReason(on: connection)) ?? nil
        }
        return explained
    }

    /// `role lacks INSERT on "s"."t": GRANT INSERT ON "s"."t" TO "role"` for each of `tables`
    /// (those that exist) on which the session's role lacks SELECT, INSERT, UPDATE or DELETE, the
    /// sink's needs; nil when it lacks none (the refusal was of something else: a schema, an owner's
    /// DDL).
    private static func missingGrants(on connection: PostgresConnection, tables: [String]) throws -> String? {
        let lacking = try connection.query("""
            SELECT t, string_agg(p, ', ' ORDER BY o), current_user::text
            FROM unnest($1::text[]) AS t, unnest(ARRAY['SELECT', 'INSERT', 'UPDATE', 'DELETE']) WITH ORDINALITY AS q(p, o)
            WHERE to_regclass(t) IS NOT NULL AND NOT has_table_privilege(t, p)
            GROUP BY t ORDER BY t
            """, [SQL.textArray(tables)])
        guard lacking.rowCount > 0, let role = lacking.text(0, 2) else { return nil }
        let grants = (0..<lacking.rowCount).compactMap { row -> (table: String, privileges: String)? in
            guard let table = lacking.text(row, 0), let privileges = lacking.text(row, 1) else { return nil }
            return (table, privileges)
        }
        let lacks = grants.map { "\($0.privileges) on \($0.table)" }.joined(separator: "; ")
        let statements = grants.map { "GRANT \($0.privileges) ON \($0.table) TO \(SQL.identifier(role))" }.joined(separator: "; ")
        return "role \(role) lacks \(lacks) (the sink reads, writes and deletes rows in its tables): \(statements)"
    }

    /// Why the session takes no writes: the server is a standby, or `default_transaction_read_only`
    /// is on, and where it was set (`pg_settings.source`), with the statement that turns it off.
    private static func readOnlyReason(on connection: PostgresConnection) throws -> String? {
        let state = try connection.query("""
            SELECT pg_is_in_recovery(), current_setting('default_transaction_read_only')::bool, s.source,
                   current_user::text, current_database()::text
            FROM pg_settings s WHERE s.name = 'default_transaction_read_only'
            """)
        guard state.rowCount == 1 else { return nil }
        if state.bool(0, 0) == true {
            return "the server is a standby (in recovery, read-only until it is promoted): point `url` at the primary"
        }
        guard state.bool(0, 1) == true, let role = state.text(0, 3).map(SQL.identifier),
              let database = state.text(0, 4).map(SQL.identifier) else { return nil }
        let setting = "default_transaction_read_only is on"
        switch state.text(0, 2) {
        case "database": return "\(setting) for database \(database): ALTER DATABASE \(database) RESET default_transaction_read_only"
        case "user": return "\(setting) for role \(role): ALTER ROLE \(role) RESET default_transaction_read_only"
        case "database user":
            return "\(setting) for role \(role) in database \(database): ALTER ROLE \(role) IN DATABASE \(database) RESET "
                + "default_transaction_read_only"
        case "configuration file":
            return "\(setting) in the server's configuration (postgresql.conf or ALTER SYSTEM): set it off and reload"
        case "client":
            return "\(setting) by this session's options: the sink's `url` (options=-c default_transaction_read_only=on) or "
                + "PGOPTIONS in healthrouter's environment: remove it"
        default: return "\(setting) (source: \(state.text(0, 2) ?? "unknown")): set it off for the role or database"
        }
    }
}
