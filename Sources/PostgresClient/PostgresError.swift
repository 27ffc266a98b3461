import HealthRouterCore

/// A failure reported by libpq or the server, with the server's SQLSTATE when it sent one.
public struct PostgresError: Error, Sendable, CustomStringConvertible {
    /// The five-character SQLSTATE (`22021`), or nil for client-side failures (connection lost).
    public var sqlState: String?
    public var message: String
    public var detail: String?
    public var hint: String?
    /// The constraint a violation broke (`sample_index_pkey`), when the server named one.
    public var constraint: String?
    /// What was being done (`connect to 127.0.0.1:5432`, `COPY samples`).
    public var operation: String
    /// Set when a connection was refused for its configuration (a wrong password, a database that
    /// does not exist, a certificate `sslrootcert` does not vouch for): what to fix. No retry
    /// succeeds until someone does. Nil for everything else, a server that is down included.
    public var misconfiguration: String?
    /// For a session that takes no writes (25006), why, when the session told (`explained(on:tables:)`):
    /// a standby, or `default_transaction_read_only` set for the role or database, with its fix.
    public var readOnlyReason: String?

    public init(sqlState: String? = nil, message: String, detail: String? = nil, hint: String? = nil,
                constraint: String? = nil, operation: String, misconfiguration: String? = nil) {
        self.sqlState = sqlState
        self.message = message
        self.detail = detail
        self.hint = hint
        self.constraint = constraint
        self.operation = operation
        self.misconfiguration = misconfiguration
    }

    /// True when the data itself is at fault and retrying the same rows cannot succeed:
    /// SQLSTATE classes 21 (cardinality violation: two rows of a batch for one key in one
    /// upsert), 22 (data exception: out of range, invalid byte sequence), 23 (integrity
    /// constraint violation: a CHECK, NOT NULL), and 54 (program limit, such as an index row
    /// too large).
    public var isDataError: Bool {
        guard let sqlState else { return false }
        return ["21", "22", "23", "54"].contains { sqlState.hasPrefix($0) }
    }

    /// Whether `error` is the server refusing a change the role may not make (SQLSTATE 42501,
    /// insufficient privilege: a role granted SELECT only) or that no one may make there (25006, a
    /// read-only transaction: a standby): a reader can still read.
    public static func refusesWrites(_ error: PostgresError) -> Bool {
        error.sqlState == "42501" || error.sqlState == "25006"
    }

    /// How a sink reports it when it is not the data's fault: misconfigured (with what to fix)
    /// when the configuration is at fault, else unavailable (retried).
    public var sinkError: SinkError {
        if let fix = misconfiguration ?? privilegeAdvice ?? layoutAdvice {
            let text = description.hasSuffix(".") ? String(description.dropLast()) : description
            return .misconfigured("\(text). To fix: \(fix)")
        }
        if sqlState == "25006" {
            // Retried: a standby being promoted takes writes soon. Said, as it may be a setting.
            return .unavailable(description + ". The server takes no writes in this session: " + (readOnlyReason
                ?? "a standby (point `url` at the primary), or default_transaction_read_only set for the role or database "
                    + "(ALTER ROLE … SET default_transaction_read_only = off)"))
        }
        return .unavailable(description)
    }

    /// What to do when the server refuses the role a change (42501): retrying cannot help until a
    /// person grants it. (A server that takes no writes, 25006, may be failing over: retried.)
    private var privilegeAdvice: String? {
        guard sqlState == "42501" else { return nil }
        if message.contains("row-level security") {
            return "the role must bypass row-level security (BYPASSRLS, or own the tables without FORCE ROW LEVEL SECURITY: "
                + "ALTER TABLE … NO FORCE ROW LEVEL SECURITY), as Supabase's postgres role does"
        }
        if let schema = Self.deniedSchema(in: message) {
            return "GRANT USAGE ON SCHEMA \(schema) TO the role (row_level_security's policies call auth.uid()), and the role "
                + "must own the sink's tables"
        }
        return "the role must own the sink's tables (its prepare creates indexes and replaces a view: ALTER TABLE … "
            + "OWNER TO the role, or let the role create them in a new schema), have USAGE and CREATE on their schema, "
            + "and keep SELECT, INSERT, UPDATE and DELETE on them (an owner's own privileges can be revoked: GRANT them back)"
    }

    /// The schema of "permission denied for schema auth", when the message is that (not the sink's
    /// own schema: that one's advice is the general one, which names USAGE and CREATE on it).
    private static func deniedSchema(in message: String) -> String? {
        guard let range = message.range(of: "permission denied for schema ") else { return nil }
        let schema = message[range.upperBound...].prefix { !$0.isWhitespace && $0 != ";" && $0 != "." }
        return schema == "auth" ? String(schema) : nil
    }

    /// What to do when the sink's tables are not as healthrouter made them (a person dropped or
    /// renamed a column, or changed its type): an undefined column (42703), a function the
    /// column's new type lacks (42883: `avg(text)`), or a type that does not match (42804).
    /// Retrying cannot help until the table is put back.
    private var layoutAdvice: String? {
        guard let sqlState, ["42703", "42883", "42804"].contains(sqlState) else { return nil }
        return "the sink's tables are not as healthrouter made them (a column dropped, renamed or of another type), or "
            + "the server lacks a function they need (an extension missing or outside the search_path): put the column "
            + "back as it was, or set `schema` to a new one (healthrouter creates its tables there; `healthrouter "
            + "backfill` fills them); see the error for which"
    }

    /// True when a read failed on a stored value the query cannot convert, which no retry reads:
    /// a data exception (class 22), or 0A000 (`cannot convert infinity to bigint`: a time of
    /// 'infinity' edited in by hand).
    public var isUnreadableValue: Bool {
        guard let sqlState else { return false }
        return sqlState.hasPrefix("22") || sqlState == "0A000"
    }

    /// How a sink's read back reports it: unreadable (`isUnreadableValue`), naming `table`, how to
    /// find such rows by its `timeColumns`, and what to do (`sink`: the sink's name); else as
    /// `sinkError`.
    public func readBackError(table: String, timeColumns: [String], sink: String) -> SinkError {
        guard isUnreadableValue else { return sinkError }
        let infinite = timeColumns.map { "NOT isfinite(\($0))" }.joined(separator: " OR ")
        return .unreadable("\(description): a row of \(table) holds a value healthrouter cannot read back: was it edited by "
                           + "hand? (`SELECT id FROM \(table) WHERE \(infinite)` finds the times of 'infinity'.) Write the value "
                           + "back as healthrouter wrote it, or delete the row and "
                           + SinkError.rewriteAdvice(sink: sink))
    }

    /// How a sink's write reports it: rejected when the data is at fault (`isDataError`: the
    /// worker splits the batch to park the bad entries), else as `sinkError`.
    public var writeError: SinkError {
        isDataError ? .rejected(description) : sinkError
    }

    public var description: String {
        var text = "\(operation): \(message)"
        if let sqlState { text += " (SQLSTATE \(sqlState))" }
        if let detail { text += "; \(detail)" }
        if let hint { text += "; hint: \(hint)" }
        return text
    }
}
