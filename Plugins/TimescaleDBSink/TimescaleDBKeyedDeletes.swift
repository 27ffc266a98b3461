import PostgresClient

/// Deletes rows of the time tables whose full key `sample_index` gave: one `DELETE … WHERE id =
/// '…' AND start_at = '…'` per row, the key written as constants.
///
/// TimescaleDB decides which compressed batches a DELETE must decompress from the constants in
/// its WHERE clause only: a key that comes from a join, a CTE or an array (`USING gone g WHERE
/// t.id = g.id …`, `id = ANY($1)`) makes it decompress every batch of every chunk the plan
/// touches, 15–20 s for 100 ids in a compressed 1M-row table, where one id with its start takes
/// 26–41 ms (TimescaleDB 2.17 and 2.28 alike). The start as a constant also lets the planner skip
/// every other chunk. The statements go to the server as one simple query, in one round trip.
struct TimescaleDBKeyedDeletes {
    /// A row's full key, as `sample_index` returned it (`start_at::text`, in the session's UTC).
    struct Location: Equatable {
        var id: String
        var table: String
        var startAt: String
    }

    let schema: TimescaleDBSchema

    /// The locations in `result`, whose columns `first` (id), `first + 1` (table) and
    /// `first + 2` (start as text) hold them; rows with a NULL there are skipped.
    static func locations(in result: PostgresResult, first: Int) -> [Location] {
        (0..<result.rowCount).compactMap { row in
            guard let id = result.text(row, first), let table = result.text(row, first + 1),
                  let start = result.text(row, first + 2) else { return nil }
            return Location(id: id, table: table, startAt: start)
        }
    }

    /// The statements deleting `locations`, nil when there is none. A location in a table the
    /// schema does not have (an index row from a newer healthrouter) is left alone.
    func sql(_ locations: [Location]) -> String? {
        let tables = Dictionary(uniqueKeysWithValues: schema.timeTables.map { ($0.name, $0.qualifiedName) })
        let statements = locations.compactMap { location -> String? in
            guard let table = tables[location.table] else { return nil }
            return "DELETE FROM \(table) WHERE id = \(SQL.literal(location.id)) "
                + "AND start_at = \(SQL.literal(location.startAt))::timestamptz"
        }
        return statements.isEmpty ? nil : statements.joined(separator: ";\n")
    }

    /// Runs the deletes of `locations` on `connection` (in the caller's transaction).
    func run(_ locations: [Location], on connection: PostgresConnection) throws {
        guard let sql = sql(locations) else { return }
        try connection.execute(sql)
    }
}
