import Foundation
/// Quotes names and literals for SQL text that cannot take parameters (DDL, COPY targets).
public enum SQL {
    /// `name` as a quoted identifier: `"my ""odd"" schema"`. Any string is safe.
    public static func identifier(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// `schema.table`, both quoted.
    public static func qualified(_ schema: String, _ table: String) -> String {
        identifier(schema) + "." + identifier(table)
    }

    /// `text` as a standard string literal: `'it''s'`. NUL characters are dropped
    /// (PostgreSQL text cannot hold them). Backslashes stay as they are: `PostgresConnection`
    /// sessions run with `standard_conforming_strings` on, where they are plain characters.
    public static func literal(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "\0", with: "").replacingOccurrences(of: "'", with: "''") + "'"
    }
}

extension SQL {
    /// A statement that creates `schema` only when it is missing: `CREATE SCHEMA IF NOT EXISTS`
    /// needs the CREATE privilege on the database even when the schema exists, which a role that
    /// may write in an existing schema often lacks.
    /// The block's body is quoted with its own tag (a name may hold `$$`); a name holding that tag
    /// gets the plain statement.
    public static func createSchemaIfMissing(_ schema: String) -> String {
        let tag = "$healthrouter_schema$"
        guard !schema.contains(tag) else { return "CREATE SCHEMA IF NOT EXISTS \(identifier(schema))" }
        return "DO \(tag) BEGIN IF NOT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = \(literal(schema))) THEN "
            + "CREATE SCHEMA \(identifier(schema)); END IF; END \(tag)"
    }

    /// `values` as a PostgreSQL text-array literal (`{"a","b\"c"}`), for a `$1::text[]` parameter.
    public static func textArray(_ values: [String]) -> String {
        var text = "{"
        for (index, value) in values.enumerated() {
            if index > 0 { text += "," }
            text += "\"" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }
        return text + "}"
    }
}
