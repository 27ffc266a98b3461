import HealthRouterCore
import Synchronization

/// What the postgres and timescaledb sinks share around their own schemas: the connection their
/// `prepare()` opens (replaced by `reconnect`, an idle session's renewal and `close`), the cursor
/// each keeps in a table of its schema (`sink`, `journal_seq`), written in the transaction of
/// every batch, a sink opened to be read only (`prepareForReading`) opened so again, and what
/// read-back asks of them (`connectionForReading`, `missingStore`). One belongs to one sink, and
/// is used on that sink's thread only (`Sink`).
public final class PostgresSinkSession {
    /// The sink's name in the config: its row in the cursor table.
    public let sinkName: String
    /// The sink's type (`postgres`, `timescaledb`), for messages.
    private let sinkType: String
    private let url: String
    private let statementTimeoutSeconds: Int
    /// The schema of the sink's tables (unquoted), for messages.
    private let schema: String
    /// The cursor table, qualified and quoted.
    private let cursorTable: String
    private let logger: Logger
    /// The connection `prepare()` made the session's (`adopt`), nil before and after `close()`.
    public private(set) var connection: PostgresConnection?
    /// The connection the latest `prepare()` opened (`connect`), until that failed or the session
    /// closed: what `prepareFailure` explains a refused privilege on.
    private var opening: PostgresConnection?
    /// The cursor the cursor table holds for this sink, as far as this session knows.
    public private(set) var storedCursor: Int64 = 0
    /// Whether the last `prepare()` failed because the role may not change the schema (SELECT only)
    /// or the server takes no writes (a standby).
    private var prepareRefusedWrites = false
    /// Set while `prepareForReading()` runs `prepare()`: a database whose encoding cannot hold every
    /// character is refused for writing only (reading one converts its text to UTF-8).
    private var preparingForReading = false
    /// Whether the sink was opened by `prepareForReading()`: `reconnect()` opens it that way again.
    private var openedForReading = false

    /// The session of the sink `context` names, of type `sinkType`, on the database of `url`, its
    /// tables in `schema`, its cursor in `cursorTable` (qualified and quoted).
    public init(sinkType: String, context: PluginContext, url: String, statementTimeout: ConfigDuration, schema: String,
                cursorTable: String) {
        self.sinkName = context.name
        self.sinkType = sinkType
        self.url = url
        self.statementTimeoutSeconds = Int(statementTimeout.seconds)
        self.schema = schema
        self.cursorTable = cursorTable
        self.logger = context.logger.with("sink", context.name)
    }

    /// The start of a sink's `prepare()`: a new connection, the server's notices logged as warnings.
    /// A database whose encoding cannot hold every character (`textEncodingProblem`) is refused
    /// (`SinkError.misconfigured`, the connection closed) unless the sink is opened to be read.
    /// The connection becomes the session's with `adopt`.
    public func connect() throws -> PostgresConnection {
        prepareRefusedWrites = false
        opening = nil
        let connection = try PostgresConnection(url: url, statementTimeoutSeconds: statementTimeoutSeconds,
                                                onNotice: { [logger] notice in logger.warning("postgres: \(notice)") })
        opening = connection
        if !preparingForReading, let problem = try connection.textEncodingProblem() {
            connection.close()
            throw SinkError.misconfigured(problem)
        }
        warnOfPlainText(connection)
        return connection
    }

    /// The sinks (by name and address) that said their connection to another machine is not
    /// encrypted, for the process: a sink made anew (a reconnect, a reload) does not say it again.
    private static let warnedPlainText = Mutex<Set<String>>([])

    /// Says once a process when the sink reaches another machine in plain text
    /// (`PostgresConnection.plainTextRemoteAddress`), and how to have TLS with a checked certificate.
    private func warnOfPlainText(_ connection: PostgresConnection) {
        guard let address = connection.plainTextRemoteAddress,
              Self.warnedPlainText.withLock({ $0.insert(sinkName + "\u{1F}" + address).inserted }) else { return }
        logger.warning("the connection to \(address) is not encrypted: the health data the sink writes crosses the network "
                           + "readable and changeable on the way",
                       [("hint", "put sslmode=verify-full and sslrootcert=/path/to/ca.pem (the CA of the server's certificate) "
                            + "in the url: libpq's default, sslmode=prefer, takes a plain connection when the server offers no TLS, "
                            + "and checks no certificate; sslmode=disable says a plain connection is meant (a tailnet or WireGuard "
                            + "between encrypts it)")])
    }

    /// Makes `connection` the session's once `prepare()` has set up the schema, and reads the
    /// sink's cursor: the one stored, or nil when there is none (`storedCursor` is then 0).
    public func adopt(_ connection: PostgresConnection) throws -> Int64? {
        self.connection = connection
        let cursor = try connection.query("SELECT journal_seq FROM \(cursorTable) WHERE sink = $1", [sinkName]).int(0, 0)
        storedCursor = cursor ?? 0
        return cursor
    }

    /// What a `prepare()` that failed with `error` throws: a `SinkError` as it is, the server's
    /// error as `explain` makes it with the connection `connect` opened (nil: it failed to open;
    /// noting whether the server refused writes, for `prepareForReading`), anything else as
    /// `SinkError.unavailable`.
    public func prepareFailure(_ error: any Error, explain: (PostgresError, PostgresConnection?) -> SinkError) -> any Error {
        defer { opening = nil }
        switch error {
        case let error as SinkError:
            return error
        case let error as PostgresError:
            prepareRefusedWrites = PostgresError.refusesWrites(error)
            return explain(error, opening)
        default:
            return SinkError.unavailable("\(error)")
        }
    }

    /// A sink's `prepareForReading()`: its `prepare`, and when the role may not change the schema,
    /// a connection that reads the tables as they are (`PostgresReadOnlyConnection.prepareForReading`,
    /// which the arguments are for).
    public func prepareForReading(prepare: () throws -> Void, versionTable: String, knownVersion: Int64, tables: [String],
                                  sinkError: (PostgresError) -> SinkError) throws {
        openedForReading = true
        connection = try PostgresReadOnlyConnection.prepareForReading(
            prepare: {
                preparingForReading = true
                defer { preparingForReading = false }
                try prepare()
            }, connection: { connection }, refusedWrites: { prepareRefusedWrites },
            url: url, statementTimeoutSeconds: statementTimeoutSeconds, schema: schema,
            versionTable: versionTable, knownVersion: knownVersion, tables: tables, logger: logger, sinkError: sinkError)
    }

    /// The start of a sink's `write`: the session's connection, a new one when the server ended the
    /// idle one (`PostgresIdleSession.renewIfEnded`, with the sink's `reconnect`). Throws
    /// `SinkError.unavailable` before `prepare()`.
    public func connectionForWrite(reconnect: () throws -> Void) throws -> PostgresConnection {
        try PostgresIdleSession.renewIfEnded(connection, logger: logger, storedCursor: { storedCursor }, reconnect: reconnect)
        guard let connection else { throw SinkError.unavailable("\(sinkType): write before prepare") }
        return connection
    }

    /// A batch's transaction on `connection`: refused (`SinkError.unavailable`) when another sink
    /// of the schema forgot the cursors since (`MissingDataTables.cursorWasForgotten`), else
    /// `rows`, then `cursor` stored as the sink's; `storedCursor` once committed.
    public func writeBatch(cursor: Int64, on connection: PostgresConnection, _ rows: () throws -> Void) throws {
        try connection.transaction {
            if try MissingDataTables.cursorWasForgotten(connection, cursorTable: cursorTable, sink: sinkName,
                                                        storedCursor: storedCursor) {
                throw SinkError.unavailable(MissingDataTables.forgottenCursor)
            }
            try rows()
            try connection.query("INSERT INTO \(cursorTable) (sink, journal_seq) VALUES ($1, $2) "
                                     + "ON CONFLICT (sink) DO UPDATE SET journal_seq = EXCLUDED.journal_seq",
                                 [sinkName, String(cursor)])
        }
        storedCursor = cursor
    }

    /// The connection a sink's `readBack` reads on: the session's. Throws `SinkError.unavailable`
    /// before `prepare()` (or `prepareForReading()`).
    public func connectionForReading() throws -> PostgresConnection {
        guard let connection else { throw SinkError.unavailable("\(sinkType): read before prepare") }
        return connection
    }

    /// A sink's `ReadableSink.missingStore`: `table` of the sink's schema when the server has no
    /// such table (`PostgresConnection.missingTable`, its notices logged as warnings), else nil.
    public func missingStore(table: String) -> String? {
        PostgresConnection.missingTable(url: url, schema: schema, table: table,
                                        onNotice: { [logger] notice in logger.warning("postgres: \(notice)") })
    }

    /// A sink's `reconnect()`: the connection closed, and the sink opened again as it was, with
    /// `prepareForReading` when it was opened so, else with `prepare`.
    public func reconnect(prepare: () throws -> Void, prepareForReading: () throws -> Void) throws {
        close()
        if openedForReading {
            try prepareForReading()
        } else {
            try prepare()
        }
    }

    /// Closes the connection.
    public func close() {
        opening = nil
        connection?.close()
        connection = nil
    }
}
