import HealthRouterCore

/// A Postgres sink's session that the server may end while the sink idles (an
/// `idle_session_timeout`, a pooler's idle limit, a restart between two pushes).
public enum PostgresIdleSession {
    /// Called by a sink at the start of `write`, on the worker's thread: when the server ended
    /// `connection`'s session (`PostgresConnection.survivedIdling` false), opens a new one with
    /// `reconnect` (the sink's own, which prepares it again and reads its cursor back) rather than
    /// fail the write, log it as failed and retry it a second later. `storedCursor` is read before
    /// and after: a cursor gone meanwhile (another sink of the schema found a data table dropped,
    /// `MissingDataTables`) throws, so that the worker opens the sink again and takes its cursor
    /// from it. Nothing happens for a session that is still there, or no connection.
    public static func renewIfEnded(_ connection: PostgresConnection?, logger: Logger, storedCursor: () -> Int64,
                                    reconnect: () throws -> Void) throws {
        guard let connection, !connection.survivedIdling else { return }
        logger.debug("the server ended the idle session: connecting again")
        let known = storedCursor()
        try reconnect()
        if known > 0 && storedCursor() == 0 { throw SinkError.unavailable(MissingDataTables.forgottenCursor) }
    }
}
