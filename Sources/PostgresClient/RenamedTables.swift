import HealthRouterCore

/// A sink's table that a person renamed (`ALTER TABLE samples RENAME TO samples_old`): its
/// indexes and constraints keep their names, so the sink cannot create the table anew beside it
/// (a named constraint fails with "relation … already exists", SQLSTATE 42P07, at every retry) or
/// creates it without the indexes whose names are taken (`CREATE INDEX IF NOT EXISTS` passes over
/// them). The Postgres-backed sinks look before their DDL, inside its transaction, and refuse to
/// start with what happened and what to do: a rename is no outage, so no retry mends it. A table
/// dropped, or moved to another schema with its indexes, is not this: the sink creates it anew
/// (`MissingDataTables`).
public enum RenamedTables {
    /// Throws `SinkError.misconfigured` when one of `indexes`' tables (unqualified name → the
    /// names of the indexes the sink's DDL gives it: its primary key's `<table>_pkey`, named
    /// constraints, named indexes) does not exist in `schema` while another table there holds
    /// one of those index names. `sink` names the sink in the message (`timescaledb sink 'tsdb'`).
    public static func check(_ connection: PostgresConnection, schema: String, indexes: [String: [String]],
                             sink: String) throws {
        let qualify = { (table: String) in SQL.qualified(schema, table) }
        // One round trip (a prepare runs this at every connect, to a server that may be far away).
        let absent = try connection.query("SELECT name FROM unnest($2::text[]) AS name "
                                              + "WHERE to_regclass(quote_ident($1) || '.' || quote_ident(name)) IS NULL",
                                          [schema, SQL.textArray(indexes.keys.sorted())])
        var missing: [String: [String]] = [:]
        for row in 0..<absent.rowCount {
            if let table = absent.text(row, 0) { missing[table] = indexes[table] }
        }
        guard !missing.isEmpty else { return }
        let held = try connection.query("""
            SELECT c.relname::text, t.relname::text FROM pg_index i
            JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_class t ON t.oid = i.indrelid
            JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = $1 AND c.relname = ANY($2::text[]) ORDER BY 1
            """, [schema, SQL.textArray(missing.values.flatMap { $0 })])
        var problems: [String] = []
        for table in missing.keys.sorted() {
            let names = Set(missing[table] ?? [])
            var holders: [String: [String]] = [:]
            for row in 0..<held.rowCount {
                guard let index = held.text(row, 0), let holder = held.text(row, 1), names.contains(index) else { continue }
                holders[holder, default: []].append(index)
            }
            guard let (holder, taken) = holders.sorted(by: { $0.key < $1.key }).first else { continue }
            problems.append("table \(qualify(table)) is missing and \(qualify(holder)) holds its "
                + "\(taken.count == 1 ? "index" : "indexes") \(taken.joined(separator: ", ")): it was renamed, and \(table) "
                + "cannot be created anew beside it under those names. To fix: rename it back (ALTER TABLE \(qualify(holder)) "
                + "RENAME TO \(SQL.identifier(table))) to carry on with its rows; or, to start \(table) afresh (the journal is "
                + "then delivered again), move the renamed table out of the schema (ALTER TABLE \(qualify(holder)) SET SCHEMA "
                + "another_schema) or drop it (DROP TABLE \(qualify(holder)) CASCADE: a view on it, the sink's own among them, "
                + "goes with it, and the sink makes its own anew); or set `schema` to a new one")
        }
        guard !problems.isEmpty else { return }
        throw SinkError.misconfigured("\(sink): " + problems.joined(separator: "; "))
    }
}
