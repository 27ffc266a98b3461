import HealthRouterCore

/// What the postgres and timescaledb sinks' configurations share: `url`, `schema`, `statement_timeout`.
extension KeyedDecodingContainer {
    /// A Postgres sink's `url`: refused when libpq would misread it (`PostgresConnectionString.problem`).
    public func decodePostgresURL(forKey key: Key) throws -> String {
        let url = try decode(String.self, forKey: key)
        if let problem = PostgresConnectionString.problem(url) {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: problem)
        }
        return url
    }

    /// A Postgres sink's `statement_timeout` (default 5m): refused outside what PostgreSQL takes
    /// (`PostgresConnection.statementTimeoutProblem`).
    public func decodeStatementTimeout(forKey key: Key) throws -> ConfigDuration {
        let timeout = try decodeIfPresent(ConfigDuration.self, forKey: key) ?? .minutes(5)
        if let problem = PostgresConnection.statementTimeoutProblem(timeout.seconds) {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "\(problem), not \(timeout)")
        }
        return timeout
    }

    /// A Postgres sink's `schema` (default `public`): refused when empty, when PostgreSQL keeps the
    /// name for its own schemas (`pg_…` in lower case, which CREATE SCHEMA refuses, SQLSTATE 42939,
    /// and the sink retried for ever as a server that is down; `PG_x`, quoted, is another name), or
    /// when longer than the 63 bytes of a name (PostgreSQL would cut it, and the sink would look
    /// for its tables under the whole one).
    public func decodeSchemaName(forKey key: Key) throws -> String {
        let schema = try decodeNonEmptyString(forKey: key, default: "public")
        if schema.hasPrefix("pg_") {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription:
                "'\(schema)' starts with pg_, which PostgreSQL keeps for its own schemas: pick another name, e.g. healthrouter")
        }
        if schema.utf8.count > 63 {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription:
                "is \(schema.utf8.count) bytes long: PostgreSQL names hold at most 63")
        }
        return schema
    }
}
