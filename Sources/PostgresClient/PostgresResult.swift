import CLibPQ

/// The rows of one statement, in libpq's text format. Owns its `PGresult`.
public final class PostgresResult {
    private let handle: OpaquePointer
    /// Kept alive with the result: libpq copies the connection's notice processor into every
    /// result, with the connection as its context, and may call it for the result later.
    private let connection: PostgresConnection

    init(_ handle: OpaquePointer, connection: PostgresConnection) {
        self.handle = handle
        self.connection = connection
    }

    deinit { PQclear(handle) }

    public var rowCount: Int { Int(PQntuples(handle)) }
    public var columnCount: Int { Int(PQnfields(handle)) }

    /// Rows the command changed (`INSERT 0 12` → 12); 0 for commands that report none.
    public var affectedRows: Int {
        guard let text = PQcmdTuples(handle) else { return 0 }
        return Int(String(cString: text)) ?? 0
    }

    /// The value at `row`, `column` as text, nil for SQL NULL.
    public func text(_ row: Int, _ column: Int) -> String? {
        guard row < rowCount, column < columnCount else { return nil }
        if PQgetisnull(handle, Int32(row), Int32(column)) != 0 { return nil }
        guard let value = PQgetvalue(handle, Int32(row), Int32(column)) else { return nil }
        return String(cString: value)
    }

    public func int(_ row: Int, _ column: Int) -> Int64? { text(row, column).flatMap { Int64($0) } }

    public func double(_ row: Int, _ column: Int) -> Double? {
        guard let text = text(row, column) else { return nil }
        switch text {
        case "Infinity": return .infinity
        case "-Infinity": return -.infinity
        case "NaN": return .nan
        default: return Double(text)
        }
    }

    public func bool(_ row: Int, _ column: Int) -> Bool? { text(row, column).map { $0 == "t" } }
}
