import Foundation
/// A table written by COPY into a temporary staging table and one
/// `INSERT … SELECT DISTINCT ON (key) … ON CONFLICT (key) DO UPDATE … WHERE (…) IS DISTINCT FROM (…)`,
/// so a row is written only when it is new or changed: an unchanged re-delivery writes nothing.
///
/// Columns are staged in `stagingType` and converted by `expression` (instants travel as epoch
/// milliseconds, `bigint`, and become `timestamptz` in the INSERT, so the server rejects an
/// instant out of its range as data). Within one batch the row with the highest `order` column
/// wins (`journal_seq`: the latest journal entry).
public struct PostgresUpsertTable: Sendable {
    public struct Column: Sendable {
        public var name: String
        /// The type in the target table (`timestamptz NOT NULL`).
        public var declaration: String
        /// The type in the staging table (`bigint`).
        public var stagingType: String
        /// The value inserted, in terms of the staging column `s.<name>`.
        public var expression: String
        /// False for bookkeeping columns (`journal_seq`) a re-delivery may change without the row changing.
        public var compared: Bool

        public init(_ name: String, _ declaration: String, staging: String? = nil, expression: String? = nil,
                    compared: Bool = true) {
            self.name = name
            self.declaration = declaration
            self.stagingType = staging ?? declaration.replacingOccurrences(of: " NOT NULL", with: "")
            self.expression = expression ?? "s." + SQL.identifier(name)
            self.compared = compared
        }

        /// An instant staged as epoch milliseconds and stored as `timestamptz`.
        public static func instant(_ name: String, required: Bool) -> Column {
            Column(name, required ? "timestamptz NOT NULL" : "timestamptz", staging: "bigint",
                   expression: "to_timestamp(s.\(SQL.identifier(name))::float8 / 1000)")
        }
    }

    public var schema: String
    public var name: String
    public var columns: [Column]
    public var key: [String]
    /// The staging column that picks the winner among duplicates of a key in one batch.
    public var order: String
    /// Extra target-table columns not staged (`written_at timestamptz NOT NULL DEFAULT now()`),
    /// and constraints (`PRIMARY KEY (id, start_at)`).
    public var extraDeclarations: [String]
    /// Set on every write that changes a row (`written_at = now()`).
    public var touch: [String]
    /// A further condition for replacing a stored row, in terms of `t` (stored) and `EXCLUDED`
    /// (staged); nil: every changed row is replaced.
    public var updateCondition: String?

    public init(schema: String, name: String, columns: [Column], key: [String], order: String = "journal_seq",
                extraDeclarations: [String] = [], touch: [String] = [], updateCondition: String? = nil) {
        self.schema = schema
        self.name = name
        self.columns = columns
        self.key = key
        self.order = order
        self.extraDeclarations = extraDeclarations
        self.touch = touch
        self.updateCondition = updateCondition
    }

    public var qualifiedName: String { SQL.qualified(schema, name) }
    public var stagingName: String { SQL.identifier("hr_stage_" + name) }

    /// `CREATE TABLE IF NOT EXISTS` for the target.
    public var createSQL: String {
        let body = columns.map { "\(SQL.identifier($0.name)) \($0.declaration)" } + extraDeclarations
        return "CREATE TABLE IF NOT EXISTS \(qualifiedName) (\n  " + body.joined(separator: ",\n  ") + "\n)"
    }

    /// The staging table: created once per session, emptied at every commit (cheaper than creating
    /// and dropping it per batch), and emptied here in case a transaction stages twice.
    public var createStagingSQL: String {
        "CREATE TEMP TABLE IF NOT EXISTS \(stagingName) ("
            + columns.map { "\(SQL.identifier($0.name)) \($0.stagingType)" }.joined(separator: ", ")
            + ") ON COMMIT DELETE ROWS; DELETE FROM \(stagingName)"
    }

    /// `COPY` into the staging table; rows carry the columns in order.
    public var copySQL: String {
        "COPY \(stagingName) (" + columns.map { SQL.identifier($0.name) }.joined(separator: ", ") + ") FROM STDIN"
    }

    /// The staged rows, one per key, as the target's values.
    public var dedupedSelectSQL: String { dedupedSelectSQL(aliased: false) }

    /// `dedupedSelectSQL`, each value named after its column when `aliased`.
    func dedupedSelectSQL(aliased: Bool) -> String {
        let keys = key.map { "s." + SQL.identifier($0) }.joined(separator: ", ")
        let values = columns.map { aliased ? "\($0.expression) AS \(SQL.identifier($0.name))" : $0.expression }
        return "SELECT DISTINCT ON (\(keys)) " + values.joined(separator: ", ")
            + " FROM \(stagingName) s ORDER BY \(keys), s.\(SQL.identifier(order)) DESC"
    }

    /// The upsert from staging into the target.
    public var upsertSQL: String { upsertSQL(skippingUnchanged: false) }

    /// The upsert from staging into the target. With `skippingUnchanged`, staged rows the target
    /// holds already, unchanged, are left out before the INSERT (an anti-join on the key), rather
    /// than met by `ON CONFLICT`, which locks each such row (a heap write and a WAL record apiece)
    /// before its `WHERE` finds nothing to change: cheaper when most of a batch is stored already
    /// (a re-delivery), dearer by one index probe a row when most of it is new. Either form
    /// writes the same rows.
    public func upsertSQL(skippingUnchanged: Bool) -> String {
        let names = columns.map { SQL.identifier($0.name) }
        let keyNames = Set(key)
        let updated = columns.filter { !keyNames.contains($0.name) }.map { SQL.identifier($0.name) }
        let compared = columns.filter { $0.compared && !keyNames.contains($0.name) }.map { SQL.identifier($0.name) }
        let sets = updated.map { "\($0) = EXCLUDED.\($0)" } + touch
        var source = dedupedSelectSQL
        if skippingUnchanged {
            // After the dedup, so the batch's winner of each key is the row compared.
            let keys = key.map(SQL.identifier)
            source = "SELECT " + names.map { "d.\($0)" }.joined(separator: ", ") + " FROM (" + dedupedSelectSQL(aliased: true)
                + ") d WHERE NOT EXISTS (SELECT 1 FROM \(qualifiedName) x WHERE "
                + keys.map { "x.\($0) = d.\($0)" }.joined(separator: " AND ")
                + " AND (" + compared.map { "x.\($0)" }.joined(separator: ", ") + ") IS NOT DISTINCT FROM ("
                + compared.map { "d.\($0)" }.joined(separator: ", ") + "))"
        }
        return "INSERT INTO \(qualifiedName) AS t (" + names.joined(separator: ", ") + ") "
            + source
            + " ON CONFLICT (" + key.map(SQL.identifier).joined(separator: ", ") + ") DO UPDATE SET "
            + sets.joined(separator: ", ")
            + " WHERE (" + compared.map { "t.\($0)" }.joined(separator: ", ") + ") IS DISTINCT FROM ("
            + compared.map { "EXCLUDED.\($0)" }.joined(separator: ", ") + ")"
            + (updateCondition.map { " AND (\($0))" } ?? "")
    }

    /// Deletes the target's rows whose `identity` column (unique too, beside `key`: an `id` primary
    /// key) is staged under another key: the row moved (its start or type changed), and the upsert,
    /// which matches rows by `key`, fails on `identity`'s uniqueness. Run when it did (rolled back
    /// to a savepoint), then the upsert again, in the same transaction.
    public func deleteMovedSQL(identity: String) -> String {
        let staged = Dictionary(uniqueKeysWithValues: columns.map { ($0.name, $0.expression) })
        let stored = key.map { "t." + SQL.identifier($0) }.joined(separator: ", ")
        return "DELETE FROM \(qualifiedName) t USING \(stagingName) s WHERE t.\(SQL.identifier(identity)) = \(staged[identity] ?? "")"
            + " AND (\(stored)) IS DISTINCT FROM (" + key.map { staged[$0] ?? "" }.joined(separator: ", ") + ")"
    }

    /// Deletes the staged rows of an `identity` staged more than once but the last (highest
    /// `order`): the batch's dedup is by `key`, so two versions of one id under two keys both stay.
    public func deleteStagedEarlierVersionsSQL(identity: String) -> String {
        let id = SQL.identifier(identity), order = SQL.identifier(order)
        return "DELETE FROM \(stagingName) s USING \(stagingName) n WHERE s.\(id) = n.\(id) AND s.\(order) < n.\(order)"
    }

    /// Stages `rows` (COPY text, columns in order) and upserts them; returns the rows written.
    /// `run`, when given, runs the upsert instead: it receives the upsert with
    /// `RETURNING t.<returning>` (only rows inserted or changed come back), to wrap in a CTE, or
    /// without RETURNING when `returning` is empty, and returns the rows it wrote. The caller owns
    /// the transaction.
    /// `skippingUnchanged` picks the upsert's form (see `upsertSQL(skippingUnchanged:)`).
    @discardableResult
    public func write(_ rows: CopyTextWriter, on connection: PostgresConnection, returning: [String] = [],
                      skippingUnchanged: Bool = false, run: ((String) throws -> Int)? = nil) throws -> Int {
        guard !rows.isEmpty else { return 0 }
        try connection.execute(createStagingSQL)
        try connection.copy(copySQL, data: rows.bytes)
        return try upsertStaged(on: connection, returning: returning, skippingUnchanged: skippingUnchanged, run: run)
    }

    /// Upserts what the staging table holds (see `write`).
    func upsertStaged(on connection: PostgresConnection, returning: [String], skippingUnchanged: Bool = false,
                      run: ((String) throws -> Int)?) throws -> Int {
        let upsertSQL = upsertSQL(skippingUnchanged: skippingUnchanged)
        guard let run else { return try connection.execute(upsertSQL).affectedRows }
        guard !returning.isEmpty else { return try run(upsertSQL) }
        return try run(upsertSQL + " RETURNING " + returning.map { "t." + SQL.identifier($0) }.joined(separator: ", "))
    }
}
