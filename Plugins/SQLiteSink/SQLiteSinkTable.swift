/// One table of the SQLite sink's schema: its columns in the order `sqlite3` shows them,
/// and the SQL that creates and writes it.
struct SQLiteSinkTable: Sendable {
    struct Column: Sendable {
        var name: String
        /// The column's type and constraints (`TEXT NOT NULL`).
        var declaration: String
    }

    var name: String
    var columns: [Column]
    /// Table constraints (`CHECK (end_at >= start_at)`).
    var constraints: [String] = []

    /// The column naming the journal entry that last changed a row: a re-delivery
    /// carrying a different sequence but the same data does not count as a change.
    static let journalColumn = "journal_seq"

    /// `CREATE TABLE IF NOT EXISTS …`.
    var createSQL: String {
        let body = columns.map { "\($0.name) \($0.declaration)" } + constraints
        return "CREATE TABLE IF NOT EXISTS \(name) (\n  " + body.joined(separator: ",\n  ") + "\n)"
    }

    /// `INSERT … ON CONFLICT(id) DO UPDATE … WHERE` some column other than `journal_seq`
    /// changed: a re-delivery of an unchanged row writes nothing (and `changes` is 0).
    /// Parameters are the columns in order.
    var upsertSQL: String {
        let names = columns.map(\.name)
        let compared = names.filter { $0 != "id" && $0 != Self.journalColumn }
        return insertSQL
            + " ON CONFLICT(id) DO UPDATE SET "
            + names.filter { $0 != "id" }.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
            + " WHERE (" + compared.map { "\(name).\($0)" }.joined(separator: ", ")
            + ") IS NOT (" + compared.map { "excluded.\($0)" }.joined(separator: ", ") + ")"
    }

    /// `INSERT INTO … VALUES (?, …)`, parameters the columns in order.
    var insertSQL: String {
        "INSERT INTO \(name) (" + columns.map(\.name).joined(separator: ", ") + ") VALUES ("
            + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")"
    }

    /// The 1-based parameter index of `column` in `insertSQL` and `upsertSQL`.
    func position(_ column: String) -> Int32 {
        guard let index = columns.firstIndex(where: { $0.name == column }) else {
            preconditionFailure("table \(name) has no column \(column)")
        }
        return Int32(index + 1)
    }
}
