/// The data tables of a sink's schema that are gone (dropped or renamed) while its cursor table
/// says rows were written: `CREATE TABLE IF NOT EXISTS` would make them anew, empty, and every
/// sink of the schema would carry on from its cursor past the rows it no longer holds. The
/// Postgres-backed sinks look before their DDL, inside its transaction, and forget the cursors
/// (every sink of the schema wrote into those tables), so the store is taken as new and the
/// journal is delivered again.
public enum MissingDataTables {
    /// Which of `tables` (unqualified; `qualify` gives their schema-qualified names) do not exist,
    /// when `cursorTable` holds a cursor; those cursors are then deleted. Nil when none is
    /// missing, or there is no cursor.
    public static func forgetCursors(_ connection: PostgresConnection, cursorTable: String, tables: [String],
                                     qualify: (String) -> String) throws -> [String]? {
        guard try exists(cursorTable, connection, qualify),
              try connection.execute("SELECT 1 FROM \(qualify(cursorTable)) LIMIT 1").rowCount > 0 else { return nil }
        var missing: [String] = []
        for table in tables where try !exists(table, connection, qualify) { missing.append(table) }
        guard !missing.isEmpty else { return nil }
        try connection.execute("DELETE FROM \(qualify(cursorTable))")
        return missing
    }

    /// Whether `table` exists.
    public static func exists(_ table: String, _ connection: PostgresConnection, _ qualify: (String) -> String) throws -> Bool {
        try connection.query("SELECT to_regclass($1) IS NOT NULL", [qualify(table)]).bool(0, 0) == true
    }

    /// Inside a write's transaction, for a sink that has written before (`storedCursor` > 0):
    /// throws when its cursor row is gone, because another sink of the schema found a dropped
    /// table and forgot every cursor. Written as it was, the batch would go into the table made
    /// anew and put this sink's old cursor back, past rows the table no longer holds; the caller
    /// throws `SinkError.unavailable`, and the sink, opened again, is delivered the journal again.
    /// (The row is locked until the transaction ends.)
    public static func cursorWasForgotten(_ connection: PostgresConnection, cursorTable: String, sink: String,
                                          storedCursor: Int64) throws -> Bool {
        guard storedCursor > 0 else { return false }
        return try connection.query("SELECT journal_seq FROM \(cursorTable) WHERE sink = $1 FOR UPDATE", [sink]).int(0, 0) == nil
    }

    /// Why a write stopped for `cursorWasForgotten`.
    public static let forgottenCursor = "the schema's cursors were reset (another sink of it found a data table dropped and "
        + "created it anew): opening the sink again, so that the journal is delivered again"

    /// The warning once the transaction that forgot the cursors committed.
    public static func warning(schema: String, cursorTable: String, missing: [String]) -> String {
        let names = missing.map { "\(schema).\($0)" }.joined(separator: ", ")
        return "\(names) \(missing.count == 1 ? "is" : "are") missing (dropped or renamed) though \(cursorTable) says rows were "
            + "written: created anew, empty, and the sinks' cursors there reset, so the journal is delivered again"
    }
}
